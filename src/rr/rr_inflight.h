/*
 * How many connections crr's open loop may have in flight at once (rr_flow_slots.c): what
 * the rate can need, bounded by the descriptors the process may open.
 */
#ifndef BP_RR_RR_INFLIGHT_H
#define BP_RR_RR_INFLIGHT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The most a rate can need: each connection lives at most timeout_ns (then it fails), so
 * at most rate x timeout are in flight, plus 10 % and one per flow for the jitter of the
 * deadlines and the slots still closing.
 */
size_t bp_rr_inflight_need(double rate, uint64_t timeout_ns, int parallel);

/*
 * The cap for a run: asked (--max-inflight), or 0 for bp_rr_inflight_need's figure, within
 * the descriptors free under RLIMIT_NOFILE (whose soft limit is raised toward the hard one
 * when needed), at least one per flow. 0, or -EINVAL with a message when asked (or the
 * flows) need more descriptors than the process may have.
 */
int bp_rr_inflight_cap(double rate, uint64_t timeout_ns, int parallel, size_t asked,
		       size_t *cap, char *err, size_t errlen);

#endif
