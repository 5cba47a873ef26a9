/* nvmeof_options.c - the engine's job options, as fio's --enghelp lists them. */
#include <stddef.h>

#include "fio.h"
#include "optgroup.h"

#include "nvmeof_engine.h"

struct fio_option nvmeof_fio_options[] = {
	{
		.name     = "traddr",
		.lname    = "NVMe/RDMA target address",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, traddr),
		.help     = "Target address (IPv4/IPv6 of the target's RDMA port); required unless "
			    "filename is a transport ID",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "trsvcid",
		.lname    = "NVMe/RDMA service ID",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, trsvcid),
		.def      = "4420",
		.help     = "Target port (RDMA CM service ID)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "adrfam",
		.lname    = "Address family",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, adrfam),
		.def      = "auto",
		.help     = "Address family of traddr",
		.posval   = {
			{ .ival = "auto", .oval = NVMEOF_ADRFAM_AUTO, .help = "Infer from traddr" },
			{ .ival = "ipv4", .oval = NVMEOF_ADRFAM_IPV4, .help = "IPv4" },
			{ .ival = "ipv6", .oval = NVMEOF_ADRFAM_IPV6, .help = "IPv6" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "subnqn",
		.lname    = "Subsystem NQN",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, subnqn),
		.help     = "NVMe subsystem NQN to connect to; required unless filename is a "
			    "transport ID",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "nsid",
		.lname    = "Namespace ID",
		.type     = FIO_OPT_INT,
		.off1     = offsetof(struct nvmeof_options, nsid),
		.def      = "1",
		.minval   = 1,
		.help     = "Namespace ID for files that are not transport IDs",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "host_traddr",
		.lname    = "Host transport address",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, host_traddr),
		.help     = "Local address to connect from (picks the HCA/port), as nvme-cli's "
			    "--host-traddr",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "hostnqn",
		.lname    = "Host NQN",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, hostnqn),
		.help     = "Host NQN (default: /etc/nvme/hostnqn, else derived from /etc/machine-id)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "hostid",
		.lname    = "Host ID",
		.type     = FIO_OPT_STR_STORE,
		.off1     = offsetof(struct nvmeof_options, hostid),
		.help     = "Host ID, a UUID (default: /etc/nvme/hostid, else from the hostnqn)",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "connect_timeout",
		.lname    = "Connect timeout (ms)",
		.type     = FIO_OPT_INT,
		.off1     = offsetof(struct nvmeof_options, connect_timeout),
		.def      = "5000",
		.minval   = 1,
		.help     = "Bound, in milliseconds, on each RDMA CM step and admin command while "
			    "connecting",
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "inline_data",
		.lname    = "In-capsule data",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, inline_data),
		.def      = "auto",
		.help     = "Send small writes as in-capsule data",
		.posval   = {
			{ .ival = "auto", .oval = NVMEOF_INLINE_AUTO,
			  .help = "When the controller offers it (IOCCSZ, ICDOFF 0)" },
			{ .ival = "off", .oval = NVMEOF_INLINE_OFF,
			  .help = "Never: the target always RDMA-reads write data" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "completion",
		.lname    = "Completion mode",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, completion),
		.def      = "poll",
		.help     = "How getevents waits for completions",
		.posval   = {
			{ .ival = "poll", .oval = NVMEOF_COMPLETION_POLL,
			  .help = "Busy-poll the completion queue (lowest latency)" },
			{ .ival = "event", .oval = NVMEOF_COMPLETION_EVENT,
			  .help = "Sleep on a completion channel (CPU-efficiency comparisons)" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name     = "nvmeof_mem",
		.lname    = "Buffer memory kind",
		.type     = FIO_OPT_STR,
		.off1     = offsetof(struct nvmeof_options, mem),
		.def      = "host",
		.help     = "Where I/O buffers live (fio's own mem= picks how host memory is allocated)",
		.posval   = {
			{ .ival = "host", .oval = NVMEOF_MEM_HOST,
			  .help = "Host memory from fio's buffer allocator, registered once" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group    = FIO_OPT_G_INVALID,
	},
	{
		.name = NULL,
	},
};
