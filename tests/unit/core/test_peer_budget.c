/*
 * The budget of bytes buffered for peers (core/peer_budget.h) as pure accounting, and the
 * control decoder charging it (proto/control.h): a message over its step's cap is refused
 * at its length, before a byte is kept; the body's buffer takes from the budget only as
 * bytes arrive, never the claimed size; a take with no room leaves the decoder as it was,
 * so the same bytes go in once room is made; everything goes back when a decoder is freed.
 */
#include <errno.h>
#include <string.h>

#include "core/peer_budget.h"
#include "proto/control.h"
#include "tap.h"

static void test_accounting(void)
{
	struct bp_peer_budget b;

	bp_peer_budget_init(&b, 100);
	CHECK(bp_peer_budget_take(&b, 60));
	CHECK(bp_peer_budget_take(&b, 40));     /* exactly full */
	CHECK(!bp_peer_budget_take(&b, 1));     /* one past */
	CHECK_INT(b.used, 100);
	CHECK_INT(b.refused, 1);
	bp_peer_budget_give(&b, 60);
	CHECK_INT(b.used, 40);
	CHECK(!bp_peer_budget_take(&b, 61));
	CHECK(bp_peer_budget_take(&b, 60));
	CHECK_INT(b.peak, 100);
	bp_peer_budget_give(&b, 1000);          /* a miscount never wraps below zero */
	CHECK_INT(b.used, 0);
	CHECK(!bp_peer_budget_take(&b, (size_t)-1)); /* a huge ask cannot wrap past the check */
	CHECK_INT(b.used, 0);
}

/* 4-byte length, then n bytes of '{"a":"xxx...' (never whole unless it is). */
static size_t message(unsigned char *buf, uint32_t claimed, size_t n)
{
	buf[0] = (unsigned char)(claimed >> 24);
	buf[1] = (unsigned char)(claimed >> 16);
	buf[2] = (unsigned char)(claimed >> 8);
	buf[3] = (unsigned char)claimed;
	memset(buf + 4, 'x', n);
	return n + 4;
}

static unsigned char big[1 << 17];

static void test_decoder(void)
{
	struct bp_peer_budget b;
	struct bp_proto_decoder d, e;
	size_t len;

	bp_peer_budget_init(&b, 20000);
	/* Over the step's cap: refused at the length, nothing held. */
	bp_proto_decoder_init(&d, BP_EXPECT_JSON);
	bp_proto_decoder_limit(&d, 65536, &b);
	len = message(big, 1u << 20, 100);
	CHECK_INT(bp_proto_feed(&d, big, len), -EMSGSIZE);
	CHECK_INT(b.used, 0);
	bp_proto_decoder_free(&d);

	/* Half of a 60000-byte claim: the buffer is what came (4 KiB steps), not the claim. */
	bp_proto_decoder_init(&d, BP_EXPECT_JSON);
	bp_proto_decoder_limit(&d, 65536, &b);
	len = message(big, 60000, 100);
	CHECK_INT(bp_proto_feed(&d, big, len), (long)len);
	CHECK_INT(b.used, 4096);
	CHECK_INT(d.charged, 4096);
	CHECK_INT(bp_proto_feed(&d, big + 4, 10000), 10000); /* 10100 came: 16 KiB */
	CHECK_INT(b.used, 16384);

	/* A second peer finds 3616 bytes of room: its first 4 KiB is refused, untouched... */
	bp_proto_decoder_init(&e, BP_EXPECT_JSON);
	bp_proto_decoder_limit(&e, 65536, &b);
	len = message(big, 5000, 5000);
	CHECK_INT(bp_proto_feed(&e, big, len), 4);            /* the length is taken */
	CHECK_INT(bp_proto_feed(&e, big + 4, len - 4), -ENOBUFS);
	CHECK_INT(e.charged, 0);
	CHECK_INT(b.used, 16384);
	/* ...and once the first is freed (closed to make room), the same bytes go in. */
	bp_proto_decoder_free(&d);
	CHECK_INT(b.used, 0);
	CHECK_INT(d.max, 65536);              /* free keeps the limits */
	CHECK(d.budget == &b);
	CHECK_INT(bp_proto_feed(&e, big + 4, 4096), 4096);
	CHECK_INT(b.used, 4096);
	/* whole: parsed ('x' * 5000 is no JSON object) and given back */
	CHECK_INT(bp_proto_feed(&e, big + 4, 904), -EBADMSG);
	CHECK_INT(b.used, 0);
	bp_proto_decoder_free(&e);
	CHECK_INT(b.peak, 16384);
}

int main(void)
{
	test_accounting();
	test_decoder();
	return tap_done();
}
