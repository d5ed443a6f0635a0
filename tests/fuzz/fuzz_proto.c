/*
 * Fuzz target for the control-protocol decoder (src/proto/control.c), the first code that
 * reads a stranger's bytes on port 5201.
 *
 * Each input is decoded as a stream of items under four expect sequences (only cookies,
 * only states, only JSON, and the order a server reads: cookie, state, then JSON and state
 * alternating), each three times: whole buffer, one byte per call, and chunk sizes drawn
 * from a generator seeded by the input. Besides crashes, leaks and hangs, the target
 * aborts when the three splits disagree, or when a call makes no progress: both would
 * be decoder bugs a sanitizer cannot see.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proto/control.h"

enum { SEQ_COOKIE, SEQ_STATE, SEQ_JSON, SEQ_SERVER, SEQ_COUNT };
enum { SPLIT_WHOLE, SPLIT_BYTES, SPLIT_RANDOM, SPLIT_COUNT };

/* What a decoding pass produced; equal for every split of the same input. */
struct outcome {
	long error;		/* first negative return, 0 when none */
	size_t items;
	size_t consumed;	/* up to the end of the last complete item */
	uint64_t digest;	/* over the decoded items */
};

static uint64_t fnv1a(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static enum bp_proto_expect expect_at(int seq, size_t item)
{
	switch (seq) {
	case SEQ_COOKIE:
		return BP_EXPECT_COOKIE;
	case SEQ_STATE:
		return BP_EXPECT_STATE;
	case SEQ_JSON:
		return BP_EXPECT_JSON;
	}
	if (item == 0)
		return BP_EXPECT_COOKIE;
	return item % 2 ? BP_EXPECT_STATE : BP_EXPECT_JSON;
}

/* xorshift64: cheap, deterministic split sizes from the input's own hash. */
static size_t next_chunk(int split, uint64_t *rng)
{
	if (split == SPLIT_WHOLE)
		return SIZE_MAX;
	if (split == SPLIT_BYTES)
		return 1;
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	/* Mostly small chunks, now and then a large one that spans several items. */
	return (*rng & 7) ? 1 + (*rng >> 8) % 17 : 1 + (*rng >> 8) % 4096;
}

/* Fold a finished item into the digest and hand the decoder back empty. */
static void take_item(struct bp_proto_decoder *d, struct outcome *o)
{
	char *text;

	o->digest = fnv1a(o->digest, &d->expect, sizeof(d->expect));
	if (d->expect == BP_EXPECT_COOKIE) {
		if (!bp_cookie_valid(d->cookie))
			abort();
		o->digest = fnv1a(o->digest, d->cookie, BP_COOKIE_LEN);
	} else if (d->expect == BP_EXPECT_STATE) {
		o->digest = fnv1a(o->digest, &d->state, sizeof(d->state));
		(void)bp_proto_state_name(d->state);
	} else {
		if (!json_is_object(d->json))
			abort();
		text = json_dumps(d->json, JSON_COMPACT | JSON_SORT_KEYS);
		if (text)
			o->digest = fnv1a(o->digest, text, strlen(text));
		free(text);
	}
	o->items++;
	bp_proto_decoder_free(d);
}

static void decode(const uint8_t *data, size_t size, int seq, int split, uint64_t seed,
		   struct outcome *o)
{
	struct bp_proto_decoder d;
	uint64_t rng = seed | 1;
	size_t off = 0, item_start = 0, chunk;
	long n;

	memset(o, 0, sizeof(*o));
	bp_proto_decoder_init(&d, expect_at(seq, 0));
	while (off < size) {
		chunk = next_chunk(split, &rng);
		if (chunk > size - off)
			chunk = size - off;
		n = bp_proto_feed(&d, data + off, chunk);
		if (n < 0) {
			o->error = n;
			break;
		}
		/* Progress: with bytes offered and no item complete, something is eaten. */
		if ((size_t)n > chunk || (n == 0 && !d.done))
			abort();
		off += (size_t)n;
		if (d.done) {
			take_item(&d, o);
			bp_proto_decoder_init(&d, expect_at(seq, o->items));
			item_start = off;
		}
	}
	/* Within a refused item, how far the decoder got depends on the split: not compared. */
	o->consumed = item_start;
	bp_proto_decoder_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome ref, o;
	uint64_t seed = fnv1a(0xcbf29ce484222325ULL, data, size);

	for (int seq = 0; seq < SEQ_COUNT; seq++) {
		decode(data, size, seq, SPLIT_WHOLE, seed, &ref);
		for (int split = SPLIT_BYTES; split < SPLIT_COUNT; split++) {
			decode(data, size, seq, split, seed, &o);
			if (memcmp(&o, &ref, sizeof(o)) != 0) {
				fprintf(stderr, "seq %d split %d: error %ld/%ld items %zu/%zu\n",
					seq, split, o.error, ref.error, o.items, ref.items);
				abort();
			}
		}
	}
	return 0;
}
