/* nvmeof_buffers.c - where a lane's I/O data lives: fio's options to a memory backend
 * (lib/nvmf_mem.h: host memory, or CUDA device memory in GPUDirect or staged mode), and the
 * backend's steps on fio's I/O path.  The backends themselves are in lib/; this file only
 * decides what fio needs of them.
 *
 * fio's buffer area always stays in host memory: fio fills it for writes and checks it after
 * reads.  With CUDA, an io_u's offset in that area is its offset in the device allocation.
 * Copies between the two are made only when fio produces or consumes the bytes (verify,
 * buffer contents options); otherwise nothing is copied per I/O (the benchmark mode). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fio.h"
#include "options.h"

#include "nvmeof_engine.h"
#include "nvmeof_log.h"
#include "nvmf_mem.h"

/* Does fio produce the bytes of writes, or look at the bytes of reads, per I/O?  Where it does
 * not, the device holds fio's initial buffer contents (copied once) and nothing is copied. */
static int nvmeof_fio_needs_data(struct thread_data *td)
{
	/* TD_F_DO_VERIFY: any verify=; TD_F_REFILL_BUFFERS: refill_buffers, and what turns it on
	 * (buffer_compress_percentage below 100, dedupe_percentage); TD_F_COMPRESS: compress or
	 * dedupe options. */
	if (td->flags & (TD_F_DO_VERIFY | TD_F_REFILL_BUFFERS | TD_F_COMPRESS))
		return 1;
	if (td->o.buffer_pattern_bytes)
		return 1;
	/* fio scrambles write buffers lightly by default (scramble_buffers=1): that alone does
	 * not make a data mode, asking for it explicitly does. */
	if (td->o.scramble_buffers && fio_option_is_set(&td->o, scramble_buffers))
		return 1;
	return 0;
}

int nvmeof_buffers_open(struct thread_data *td, struct nvmeof_buffers *b)
{
	struct nvmeof_options *o = td->eo;
	struct nvmf_mem_opts mo;
	char err[NVMF_MEM_ERR_LEN];
	int rc, dev = 0;

	memset(b, 0, sizeof(*b));
	memset(&mo, 0, sizeof(mo));
	b->tcp = nvmeof_job_trtype(td) == NVMF_TRTYPE_TCP;
	mo.kind = o->mem == NVMEOF_MEM_CUDA ? NVMF_MEM_CUDA : NVMF_MEM_HOST;
	if (mo.kind == NVMF_MEM_CUDA) {
		/* job i takes entry i mod n (thread_number counts jobs from 1, across sections) */
		rc = nvmeof_cuda_device_pick(o->cuda_device, td->thread_number ?
					     td->thread_number - 1 : 0, &dev, err, sizeof(err));
		if (rc) {
			nvmeof_job_err(td, "%s\n", err);
			return rc;
		}
		mo.cuda_device = dev;
		mo.reg = o->gpu_reg == NVMEOF_GPU_REG_DMABUF ? NVMF_MEM_REG_DMABUF :
			 o->gpu_reg == NVMEOF_GPU_REG_PEERMEM ? NVMF_MEM_REG_PEERMEM :
			 NVMF_MEM_REG_AUTO;
		mo.staged = o->gpudirect == NVMEOF_GPUDIRECT_OFF;
		mo.staged_fallback = o->gpudirect == NVMEOF_GPUDIRECT_AUTO;
		if (b->tcp) {
			/* Nothing on TCP can reach device memory: staging is the data path, so
			 * gpudirect has nothing to promise; a forced registration path is refused. */
			if (mo.reg != NVMF_MEM_REG_AUTO) {
				nvmeof_job_err(td, "gpu_reg=%s needs transport=rdma (NVMe/TCP has no "
					       "GPUDirect: device memory is staged)\n",
					       mo.reg == NVMF_MEM_REG_DMABUF ? "dmabuf" : "peermem");
				return -EINVAL;
			}
			mo.staged = 1;
			mo.staged_fallback = 0;
			mo.staged_why = "NVMe/TCP has no GPUDirect";
		}
		b->cuda = 1;
		b->host_data = nvmeof_fio_needs_data(td);
	}
	rc = nvmf_mem_open(&b->mem, &mo, err, sizeof(err));
	if (rc) {
		nvmeof_err("nvmeof: %s: nvmeof_mem=%s: %s\n", td->o.name, b->cuda ? "cuda" : "host",
			   err);
		return rc;
	}
	return 0;
}

int nvmeof_buffers_register(struct thread_data *td, struct nvmeof_buffers *b,
			    struct nvmf_lane *const *lanes, unsigned nr_lanes)
{
	struct nvmf_mem_registrar r;
	unsigned first = 0;
	int rc;

	if (!td->orig_buffer || !td->orig_buffer_size)
		return 0;
	/* The least the target needs: it RDMA-reads the data of writes and RDMA-writes the data
	 * of reads (verify reads back what a write-only job wrote). */
	b->access = 0;
	if (td_write(td))
		b->access |= NVMF_MEM_REMOTE_READ;
	if (td_read(td) || (td->flags & TD_F_DO_VERIFY))
		b->access |= NVMF_MEM_REMOTE_WRITE;
	while (first < nr_lanes && !lanes[first])
		first++;
	if (first == nr_lanes)
		return -ENOTCONN;
	rc = nvmf_mem_attach(b->mem, td->orig_buffer, td->orig_buffer_size);
	if (!rc) {
		nvmf_mem_lane_registrar(&b->reg_ctx, lanes[first], b->access, &r);
		rc = nvmf_mem_register(b->mem, &r);
	}
	if (rc) {
		nvmeof_err("nvmeof: %s: %s\n", td->o.name, nvmf_mem_err(b->mem));
		return rc;
	}
	b->mr = nvmf_mem_mr(b->mem);
	b->path_mr[first] = b->mr;
	b->nr_devices = 1;
	/* A path on a device already registered on (its lane took that lane's protection
	 * domain) shares that registration; a path on another device gets its own.  A path down
	 * now (NULL) gets its device's when it comes up (nvmeof_buffers_path_up). */
	for (unsigned i = 0; i < nr_lanes; i++) {
		if (!lanes[i] || b->path_mr[i] || !nvmeof_buffers_path_up(b, lanes, nr_lanes, i))
			continue;
		nvmf_mem_lane_registrar(&b->more_ctx[b->nr_devices - 1], lanes[i], b->access, &r);
		rc = nvmf_mem_register_more(b->mem, &r, &b->path_mr[i]);
		if (rc) {
			nvmeof_err("nvmeof: %s: path %u: %s\n", td->o.name, i + 1,
				   nvmf_mem_err(b->mem));
			return rc;
		}
		b->nr_devices++;
	}
	return 0;
}

int nvmeof_buffers_path_up(struct nvmeof_buffers *b, struct nvmf_lane *const *lanes,
			   unsigned nr_lanes, unsigned p)
{
	if (b->path_mr[p] || !b->mr)
		return 0;
	for (unsigned j = 0; j < nr_lanes; j++)
		if (j != p && lanes[j] && b->path_mr[j] &&
		    nvmf_lane_pd(lanes[j]) == nvmf_lane_pd(lanes[p])) {
			b->path_mr[p] = b->path_mr[j];
			return 0;
		}
	return -ENODEV;
}

/* One line for each failure on the I/O path (later ones look the same). */
static int nvmeof_buffers_fail(struct thread_data *td, struct nvmeof_buffers *b, int rc)
{
	if (!b->failed_logged) {
		b->failed_logged = 1;
		nvmeof_err("nvmeof: %s: %s\n", td->o.name, nvmf_mem_err(b->mem));
	}
	return rc;
}

int nvmeof_buffers_map(struct thread_data *td, struct nvmeof_buffers *b, struct io_u *io_u,
		       struct nvmf_io *io)
{
	long long off;
	int rc;

	/* unregistered (NVMe/TCP registers nothing: its area is just addressed) */
	if (!b->mr || (!b->mr->ibv_mr && !b->tcp))
		return -EFAULT;
	off = nvmf_mem_offset(b->mem, io_u->xfer_buf, io_u->xfer_buflen);
	if (off < 0)
		return -EFAULT;
	io->buf = nvmf_mem_wire(b->mem, (size_t)off);
	io->lkey = b->mr->lkey;
	io->rkey = b->mr->rkey;
	/* Before the capsule goes out, the bytes the target will read are where it reads them. */
	if (b->cuda && io->op == NVMF_IO_WRITE) {
		rc = nvmf_mem_prepare_write(b->mem, (size_t)off, io_u->xfer_buflen, b->host_data);
		if (rc)
			return nvmeof_buffers_fail(td, b, rc);
	}
	return 0;
}

void nvmeof_buffers_reaped(struct thread_data *td, struct nvmeof_buffers *b, struct io_u **ev,
			   unsigned n)
{
	unsigned i, reads = 0;
	int rc, flushed;

	if (!b->cuda)
		return;
	for (i = 0; i < n; i++)
		if (ev[i]->ddir == DDIR_READ && !ev[i]->error)
			reads++;
	if (!reads)
		return;
	/* The target's RDMA writes into device memory are made visible once for the batch,
	 * before anything reads them. */
	flushed = nvmf_mem_reads_reaped(b->mem);
	for (i = 0; i < n; i++) {
		struct io_u *io_u = ev[i];
		long long off;

		if (io_u->ddir != DDIR_READ || io_u->error)
			continue;
		rc = flushed;
		if (!rc) {
			off = nvmf_mem_offset(b->mem, io_u->xfer_buf, io_u->xfer_buflen);
			rc = off < 0 ? -EFAULT : nvmf_mem_finish_read(b->mem, (size_t)off,
					io_u->xfer_buflen, b->host_data);
		}
		if (rc) {
			nvmeof_buffers_fail(td, b, rc);
			io_u->error = -rc;
		}
	}
}

void nvmeof_buffers_describe(const struct nvmeof_buffers *b, const char *rdma_dev, char *buf,
			     size_t len)
{
	char mem[NVMF_MEM_ERR_LEN + 256];
	const char *copies, *acc;

	buf[0] = 0;
	if (!b->mem)
		return;
	acc = b->access == (NVMF_MEM_REMOTE_READ | NVMF_MEM_REMOTE_WRITE) ? "read and write" :
	      b->access == NVMF_MEM_REMOTE_READ ? "read" :
	      b->access == NVMF_MEM_REMOTE_WRITE ? "write" : "neither read nor write";
	if (!b->cuda) {
		/* NVMe/TCP (no RDMA device): the data travels in the PDUs */
		if (!rdma_dev)
			snprintf(buf, len, "; data travels in the PDUs, to and from the buffers");
		else
			snprintf(buf, len, "; the target may RDMA-%s the buffers", acc);
		return;
	}
	nvmf_mem_describe(b->mem, rdma_dev, mem, sizeof(mem));
	if (nvmf_mem_info(b->mem)->staged)
		copies = b->host_data ?
			"staged mode: device<->staging per I/O, and host<->device for fio's data "
			"checks" :
			"staged mode: device<->staging per I/O";
	else
		copies = b->host_data ?
			"data mode: host->device before writes, device->host after reads (fio's "
			"verify or buffer options need the bytes)" :
			"benchmark mode: no copies (fio neither fills nor checks the data)";
	snprintf(buf, len, "; buffers: %s; %s; the target may RDMA-%s them", mem, copies, acc);
}

/* A job's closing line with GPU memory: what the copies between host and device cost it (the
 * tools read it to say how much of a run went to copying). */
void nvmeof_buffers_report(struct thread_data *td, const struct nvmeof_buffers *b)
{
	char line[512];

	if (!b->mem || !b->cuda || !b->mr)
		return;
	nvmf_mem_copies_describe(b->mem, line, sizeof(line));
	nvmeof_info("nvmeof: %s: CUDA copies: %s\n", td->o.name, line);
}

int nvmeof_buffers_close(struct thread_data *td, struct nvmeof_buffers *b)
{
	char err[NVMF_MEM_ERR_LEN];
	int rc;

	if (!b->mem)
		return 0;
	err[0] = 0;
	rc = nvmf_mem_close(b->mem, err, sizeof(err));
	if (rc)
		nvmeof_err("nvmeof: %s: releasing buffers: %s\n", td->o.name, err);
	b->mem = NULL;
	b->mr = NULL;
	memset(b->path_mr, 0, sizeof(b->path_mr));
	return rc;
}
