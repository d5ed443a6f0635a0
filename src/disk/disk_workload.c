#include "disk/disk_workload.h"

#include <errno.h>
#include <stdlib.h>

static const char *const mode_names[] = {
	[BP_DISK_SEQWR] = "seqwr", [BP_DISK_SEQREWR] = "seqrewr", [BP_DISK_SEQRD] = "seqrd",
	[BP_DISK_RNDRD] = "rndrd", [BP_DISK_RNDWR] = "rndwr",     [BP_DISK_RNDRW] = "rndrw",
};

const char *bp_disk_mode_name(enum bp_disk_mode mode)
{
	return mode <= BP_DISK_RNDRW ? mode_names[mode] : "unknown";
}

bool bp_disk_mode_reads(enum bp_disk_mode mode)
{
	return mode == BP_DISK_SEQRD || mode == BP_DISK_RNDRD || mode == BP_DISK_RNDRW;
}

bool bp_disk_mode_writes(enum bp_disk_mode mode)
{
	return mode != BP_DISK_SEQRD && mode != BP_DISK_RNDRD;
}

bool bp_disk_mode_sequential(enum bp_disk_mode mode)
{
	return mode == BP_DISK_SEQWR || mode == BP_DISK_SEQREWR || mode == BP_DISK_SEQRD;
}

uint64_t bp_disk_total_bytes(const struct bp_disk_layout *l)
{
	return l->file_size * l->nfiles;
}

int bp_disk_gen_init(struct bp_disk_gen *g, const struct bp_disk_workload *w,
		     uint32_t worker, uint32_t nworkers, uint64_t seed)
{
	*g = (struct bp_disk_gen){ .w = w, .worker = worker, .nworkers = nworkers ? nworkers : 1,
				   .seq_next = worker, .rng = seed };
	if (w->scope == BP_DISK_SYNC_WRITTEN) {
		g->dirty_files = calloc(w->layout.nfiles ? w->layout.nfiles : 1, 1);
		if (!g->dirty_files)
			return -ENOMEM;
	}
	return 0;
}

void bp_disk_gen_free(struct bp_disk_gen *g)
{
	free(g->dirty_files);
	g->dirty_files = NULL;
}

/* splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough to spread requests. */
uint64_t bp_disk_random_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The next file of the round under way, as a sync request; false when the round is done. */
static bool round_pick(struct bp_disk_gen *g, struct bp_disk_req *req)
{
	while (g->round_next < g->w->layout.nfiles) {
		uint32_t f = g->round_next++;

		if (g->dirty_files) {
			if (!g->dirty_files[f])
				continue;
			g->dirty_files[f] = 0;
		}
		*req = (struct bp_disk_req){ .op = BP_DISK_SYNC, .file = f };
		return true;
	}
	g->in_round = false;
	g->dirty = false;
	return false;
}

static bool next_is_read(struct bp_disk_gen *g)
{
	switch (g->w->mode) {
	case BP_DISK_SEQRD:
	case BP_DISK_RNDRD:
		return true;
	case BP_DISK_RNDRW:
		/* sysbench's rule, in doubles as it computes it */
		return (double)(g->reads + 1) / (double)(g->writes + 1) < g->w->rw_ratio;
	default:
		return false;
	}
}

/* Which block of the whole set: the next of the sequence, or a uniform pick. */
static uint64_t next_block(struct bp_disk_gen *g, uint64_t nblocks)
{
	uint64_t b;

	if (bp_disk_mode_sequential(g->w->mode)) {
		b = g->seq_next % nblocks;
		g->seq_next = b + g->nworkers;
		return b;
	}
	/* 53 random bits as a double in [0, 1), scaled: sysbench's uniform pick */
	b = (uint64_t)((double)(bp_disk_random_next(&g->rng) >> 11) * 0x1.0p-53 * (double)nblocks);
	return b < nblocks ? b : nblocks - 1;
}

void bp_disk_gen_next(struct bp_disk_gen *g, struct bp_disk_req *req)
{
	const struct bp_disk_layout *l = &g->w->layout;
	uint64_t per_file = l->file_size / l->block;
	uint64_t b;
	bool read;

	if (!g->in_round && g->w->sync_freq && g->dirty && g->requests % g->w->sync_freq == 0) {
		g->in_round = true;
		g->round_next = 0;
	}
	if (g->in_round && round_pick(g, req))
		return;
	read = next_is_read(g);
	b = next_block(g, per_file * l->nfiles);
	*req = (struct bp_disk_req){ .op = read ? BP_DISK_READ : BP_DISK_WRITE,
				     .file = (uint32_t)(b / per_file),
				     .offset = (b % per_file) * l->block, .len = l->block };
	g->requests++;
	if (read) {
		g->reads++;
		return;
	}
	g->writes++;
	g->dirty = true;
	if (g->dirty_files)
		g->dirty_files[req->file] = 1;
}

bool bp_disk_gen_final(struct bp_disk_gen *g, struct bp_disk_req *req)
{
	if (!g->final_started) {
		g->final_started = true;
		/* A round cut short by the time limit starts over: the final one covers it. */
		g->in_round = g->w->sync_end && bp_disk_mode_writes(g->w->mode);
		g->round_next = 0;
	}
	return g->in_round && round_pick(g, req);
}
