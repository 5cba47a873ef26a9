/* nvmf_mpath.c - path choice, path statuses and the failover record (nvmf_mpath.h). */
#include <stdio.h>
#include <string.h>

#include "nvmf_mpath.h"
#include "nvmf_spec.h"

const char *nvmf_mp_policy_name(int policy)
{
	switch (policy) {
	case NVMF_MP_NUMA:        return "numa";
	case NVMF_MP_ROUND_ROBIN: return "round-robin";
	case NVMF_MP_QUEUE_DEPTH: return "queue-depth";
	default:                  return "unknown";
	}
}

/* Lower is better; 0 = not usable. */
static int nvmf_mp_rank(const struct nvmf_mp_path *p, unsigned g)
{
	if (!p->connected || g >= NVMF_MP_MAX_GROUPS)
		return 0;
	switch (p->ana[g]) {
	case NVMF_ANA_UNKNOWN:
	case NVME_ANA_OPTIMIZED:     return 1;
	case NVME_ANA_NON_OPTIMIZED: return 2;
	default:                     return 0;   /* inaccessible, persistent loss, change */
	}
}

int nvmf_mp_usable(const struct nvmf_mp_path *p, unsigned g)
{
	return nvmf_mp_rank(p, g) != 0;
}

int nvmf_mp_usable_any(const struct nvmf_mp *mp, const struct nvmf_mp_path *p)
{
	unsigned n = mp->nr_groups ? mp->nr_groups : 1;

	for (unsigned g = 0; g < n; g++)
		if (nvmf_mp_rank(p, g))
			return 1;
	return 0;
}

int nvmf_mp_pick(struct nvmf_mp *mp, unsigned g)
{
	int best_rank = 0, pick = -1;

	for (unsigned i = 0; i < mp->nr; i++) {
		int r = nvmf_mp_rank(&mp->p[i], g);

		if (r && (!best_rank || r < best_rank))
			best_rank = r;
	}
	if (!best_rank)
		return -1;
	switch (mp->policy) {
	case NVMF_MP_ROUND_ROBIN:
		for (unsigned k = 0; k < mp->nr; k++) {
			unsigned i = (mp->rr_next + k) % mp->nr;

			if (nvmf_mp_rank(&mp->p[i], g) == best_rank) {
				mp->rr_next = (i + 1) % mp->nr;
				return (int)i;
			}
		}
		return -1;
	case NVMF_MP_QUEUE_DEPTH:
		for (unsigned i = 0; i < mp->nr; i++)
			if (nvmf_mp_rank(&mp->p[i], g) == best_rank &&
			    (pick < 0 || mp->p[i].inflight < mp->p[pick].inflight))
				pick = (int)i;
		return pick;
	default:    /* numa: the first of the best; the others stand by */
		for (unsigned i = 0; i < mp->nr; i++)
			if (nvmf_mp_rank(&mp->p[i], g) == best_rank)
				return (int)i;
		return -1;
	}
}

void nvmf_mp_completed(struct nvmf_mp *mp, unsigned path, uint64_t now_ms)
{
	struct nvmf_mp_path *p = &mp->p[path];

	p->ios++;
	p->last_done_ms = now_ms;
	/* Newest first: open events are at the end, and stop at the first closed one of each
	 * path would miss an older open one: walk them all (at most NVMF_MP_MAX_EVENTS). */
	for (unsigned i = 0; i < mp->nr_ev; i++) {
		struct nvmf_mp_event *ev = &mp->ev[i];

		if (ev->recovered || ev->path == path)
			continue;
		ev->recovered = 1;
		ev->to_path = path;
		ev->recovery_ms = now_ms >= ev->lost_ms ? now_ms - ev->lost_ms : 0;
	}
}

struct nvmf_mp_event *nvmf_mp_failover(struct nvmf_mp *mp, unsigned path, uint64_t now_ms,
				       const char *why)
{
	struct nvmf_mp_path *p = &mp->p[path];
	struct nvmf_mp_event *ev;

	snprintf(p->why, sizeof(p->why), "%s", why ? why : "");
	mp->nr_failovers++;
	if (mp->nr_ev == NVMF_MP_MAX_EVENTS)
		return NULL;
	ev = &mp->ev[mp->nr_ev++];
	memset(ev, 0, sizeof(*ev));
	ev->path = path;
	ev->lost_ms = now_ms;
	ev->quiet_ms = p->last_done_ms && now_ms > p->last_done_ms ? now_ms - p->last_done_ms : 0;
	snprintf(ev->why, sizeof(ev->why), "%s", why ? why : "");
	return ev;
}

void nvmf_mp_moved(struct nvmf_mp *mp, struct nvmf_mp_event *ev, unsigned n)
{
	mp->moved += n;
	if (ev)
		ev->moved += n;
}

int nvmf_mp_status_is_path(uint16_t status)
{
	return ((status >> 8) & 0x7) == NVME_SCT_PATH;
}

uint8_t nvmf_mp_status_ana(uint16_t status)
{
	if (!nvmf_mp_status_is_path(status))
		return NVMF_ANA_UNKNOWN;
	switch (status & 0xff) {
	case NVME_SC_ANA_PERSISTENT_LOSS: return NVME_ANA_PERSISTENT_LOSS;
	case NVME_SC_ANA_INACCESSIBLE:    return NVME_ANA_INACCESSIBLE;
	case NVME_SC_ANA_TRANSITION:      return NVME_ANA_CHANGE;
	default:                          return NVMF_ANA_UNKNOWN;
	}
}

void nvmf_mp_summary(const struct nvmf_mp *mp, char *buf, size_t len)
{
	uint64_t max_rec = 0, max_quiet = 0;
	unsigned open = 0;
	size_t o = 0;

	buf[0] = 0;
#define NVMF_MP_PUT(...) do { if (o < len) o += (size_t)snprintf(buf + o, len - o, __VA_ARGS__); } while (0)
	NVMF_MP_PUT("%s over %u paths:", nvmf_mp_policy_name(mp->policy), mp->nr);
	for (unsigned i = 0; i < mp->nr; i++) {
		const struct nvmf_mp_path *p = &mp->p[i];

		NVMF_MP_PUT("%s %s %llu I/Os", i ? "," : "", p->name, (unsigned long long)p->ios);
		if (p->losses || p->ana_moves)
			NVMF_MP_PUT(" (lost %ux, left for ANA/path status %ux)", p->losses,
				    p->ana_moves);
		if (!p->connected && p->why[0])
			NVMF_MP_PUT(" [not connected at the end: %s]", p->why);
	}
	for (unsigned i = 0; i < mp->nr_ev; i++) {
		if (!mp->ev[i].recovered)
			open++;
		else if (mp->ev[i].recovery_ms > max_rec)
			max_rec = mp->ev[i].recovery_ms;
		if (mp->ev[i].quiet_ms > max_quiet)
			max_quiet = mp->ev[i].quiet_ms;
	}
	NVMF_MP_PUT("; failovers %llu, I/Os moved %llu", (unsigned long long)mp->nr_failovers,
		    (unsigned long long)mp->moved);
	if (mp->nr_ev)
		NVMF_MP_PUT(", recovery max %llu ms (loss to the first completion on another "
			    "path), silence before loss max %llu ms%s", (unsigned long long)max_rec,
			    (unsigned long long)max_quiet, open ? ", some never recovered" : "");
#undef NVMF_MP_PUT
}

static void nvmf_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int nvmf_mp_write_json(const struct nvmf_mp *mp, const char *job, FILE *f)
{
	fputs("{\"job\": ", f);
	nvmf_json_str(f, job ? job : "");
	fprintf(f, ", \"policy\": \"%s\", \"failovers\": %llu, \"ios_moved\": %llu, \"paths\": [",
		nvmf_mp_policy_name(mp->policy), (unsigned long long)mp->nr_failovers,
		(unsigned long long)mp->moved);
	for (unsigned i = 0; i < mp->nr; i++) {
		const struct nvmf_mp_path *p = &mp->p[i];

		fprintf(f, "%s{\"path\": ", i ? ", " : "");
		nvmf_json_str(f, p->name);
		fprintf(f, ", \"ios\": %llu, \"losses\": %u, \"ana_moves\": %u, \"ana_notices\": %u, "
			"\"connected\": %s, \"ana_state\": \"%s\"", (unsigned long long)p->ios,
			p->losses, p->ana_moves, p->aens,
			p->connected ? "true" : "false",
			p->ana[0] == NVMF_ANA_UNKNOWN ? "unknown" : nvme_ana_state_name(p->ana[0]));
		/* namespaces in several ANA groups: each group's state (ana_state: the first's) */
		if (mp->nr_groups > 1) {
			fputs(", \"ana_groups\": [", f);
			for (unsigned g = 0; g < mp->nr_groups && g < NVMF_MP_MAX_GROUPS; g++)
				fprintf(f, "%s{\"grpid\": %u, \"state\": \"%s\"}", g ? ", " : "",
					mp->grpid[g], p->ana[g] == NVMF_ANA_UNKNOWN ? "unknown" :
					nvme_ana_state_name(p->ana[g]));
			fputc(']', f);
		}
		fputc('}', f);
	}
	fputs("], \"events\": [", f);
	for (unsigned i = 0; i < mp->nr_ev; i++) {
		const struct nvmf_mp_event *ev = &mp->ev[i];

		fprintf(f, "%s{\"path\": ", i ? ", " : "");
		nvmf_json_str(f, mp->p[ev->path].name);
		fputs(", \"why\": ", f);
		nvmf_json_str(f, ev->why);
		fprintf(f, ", \"lost_ms\": %llu, \"quiet_before_ms\": %llu, \"ios_moved\": %u, "
			"\"cqt_wait_ms\": %u, \"recovered\": %s", (unsigned long long)ev->lost_ms,
			(unsigned long long)ev->quiet_ms, ev->moved, ev->cqt_wait_ms,
			ev->recovered ? "true" : "false");
		if (ev->recovered) {
			fputs(", \"to_path\": ", f);
			nvmf_json_str(f, mp->p[ev->to_path].name);
			fprintf(f, ", \"recovery_ms\": %llu", (unsigned long long)ev->recovery_ms);
		}
		fputc('}', f);
	}
	fputs("]}\n", f);
	return ferror(f) ? -1 : 0;
}
