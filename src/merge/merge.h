/*
 * Several testers' results of one test, made one (`boardperf merge`; docs/json.md, "One
 * result of several testers"): boards that ran the same test at once, each its share of the
 * load (--share K/N, --start-at), as one instrument. Each total and interval figure combines
 * by its kind's rule (result/kind.h: sums for rates, bytes and packets; min, max, mean where
 * the catalogue says so); latency percentiles are read off the testers' histograms added
 * together, never averaged. The testers' own figures stay beside the merged ones, their
 * spans' overlap is checked, and a tester that gave no result is named, never left out
 * quietly.
 */
#ifndef BP_MERGE_MERGE_H
#define BP_MERGE_MERGE_H

#include <stddef.h>

#include <jansson.h>

#include "core/options.h"
#include "result/result.h"

/* At most this many testers in one merge: the command line's positional arguments. */
#define BP_MERGE_MAX_TESTERS BP_MAX_POSITIONAL

/* Testers' starts further apart than this share of the test: warning starts-skewed. */
#define BP_MERGE_SKEW_SHARE 0.01

struct bp_merge_input {
	const char *name;    /* the tester as the result names it: a file's name without .json */
	const char *source;  /* the file or stored run, as given */
	const json_t *doc;   /* its result document, NULL when there is none */
	const char *why;     /* no document: why ("no such file"), for the merged result */
};

/*
 * Fills r (a fresh result) with the merge of the n inputs. Returns 0; -ENOENT when a tester
 * gave no result or one that failed (r holds the others' merge, its error names the
 * missing ones); -EINVAL for documents that do not merge (different tests, a suite, a
 * merged result, none with figures), with the reason in err; -ENOMEM.
 */
int bp_merge_build(const struct bp_merge_input *in, size_t n, struct bp_result *r, char *err,
		   size_t errlen);

/*
 * The figures of the testers' results t[0..n) (each measured, of one test kind k) combined
 * into r: totals, latencies from histograms, the intervals all testers have. A figure the
 * rule cannot combine (no rule, a latency without buckets, one some testers lack) gets a
 * warning naming it rather than a guess. 0 or -ENOMEM (merge_figures.c).
 */
struct bp_kind;
int bp_merge_figures(struct bp_result *const *t, const char *const *names, size_t n,
		     const struct bp_kind *k, struct bp_result *r);

#endif
