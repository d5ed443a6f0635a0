/*
 * Every kind the registry lists: named as its command, base units only, no name declared
 * twice, a meaning that fits a line, headline places 1..n without a gap. And the headline
 * result/headline.c reads from the catalogue is the one its table held before the
 * catalogues (below), so the output stays; every kind has one (gpio, rfc2544 and latency
 * since the catalogues).
 */
#include <string.h>

#include "cli/registry.h"
#include "result/headline.h"
#include "result/kind.h"

#include "tap.h"

/* result/headline.c's table before the headlines moved into the catalogues. */
static const struct {
	const char *test;
	const char *metrics[BP_HEADLINE_METRICS];
	const char *latency;
} before[] = {
	{ "cpu", { "rsa2048.sign", "sha256.8192", "aes-128-gcm.8192", NULL }, NULL },
	{ "mem", { "memcpy.bandwidth", "memcpy.bandwidth.all", "latency.64MiB", NULL }, NULL },
	{ "disk", { "reads.rate", "writes.rate", "fsyncs.rate", NULL }, NULL },
	{ "tcp", { "receiver.bitrate", "sender.retransmits", NULL }, NULL },
	{ "udp", { "receiver.pps", "loss.percent", NULL }, NULL },
	{ "rr", { "transactions.rate", NULL }, "transaction" },
	{ "crr", { "connections.rate", "failures", NULL }, NULL },
	{ "http", { "requests.rate", "errors", NULL }, "request" },
	/* since the catalogues: patterns, the first figure of the run that matches */
	{ "gpio", { "*.periods.rate", "*.overhead", NULL }, NULL },
	{ "rfc2544", { "*.zero_loss.fps", "*.zero_loss.bitrate", NULL }, NULL },
	{ "latency", { "rpm", "*.added.p50", NULL }, NULL },
	/* its tests' figures under their labels: what each lost, then each together */
	{ "together", { "*.**.degradation", "*.**.together", NULL }, NULL },
};

static void check_headline(const char *test)
{
	struct bp_headline buf;
	const struct bp_headline *h = bp_headline_of(test, &buf);
	size_t i = 0;

	while (i < sizeof(before) / sizeof(before[0]) && strcmp(before[i].test, test))
		i++;
	if (i == sizeof(before) / sizeof(before[0])) {
		CHECK_STR(test, "a kind with a headline");
		return;
	}
	CHECK(h != NULL);
	for (size_t m = 0; h && m < BP_HEADLINE_METRICS; m++)
		CHECK_STR(h->metrics[m] ? h->metrics[m] : "(none)",
			  before[i].metrics[m] ? before[i].metrics[m] : "(none)");
	CHECK_STR(h && h->latency ? h->latency : "(none)",
		  before[i].latency ? before[i].latency : "(none)");
}

static void check_kind(const struct bp_test *t)
{
	const struct bp_kind *k = t->kind;
	unsigned places = 0;

	CHECK_STR(k->name, t->name);
	CHECK(k->nmetrics > 0);
	for (size_t i = 0; i < k->nmetrics; i++) {
		const struct bp_metric_decl *d = &k->metrics[i];

		/* "=": a borrowed figure's unit, which only a kind that names it may declare */
		bool unit_ok = bp_unit_is_base(d->unit) || (!strcmp(d->unit, "=") && k->borrowed_unit);

		if (!unit_ok || !d->meaning || !d->meaning[0] ||
		    strlen(d->meaning) > 80)
			CHECK_STR(d->name, "a base unit and a one-line meaning");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(k->metrics[j].name, d->name))
				CHECK_STR(d->name, "declared once");
		if (d->headline)
			places++;
	}
	for (unsigned p = 1; p <= places; p++) {
		size_t found = 0;

		for (size_t i = 0; i < k->nmetrics; i++)
			found += k->metrics[i].headline == p;
		CHECK_INT((int)found, 1);
	}
	CHECK(places <= BP_HEADLINE_METRICS);
	check_headline(t->name);
	CHECK(bp_kind_find(t->name) == k);
}

int main(void)
{
	int kinds = 0;

	bp_registry_install_kinds();
	for (size_t i = 0; bp_tests[i]; i++)
		if (bp_tests[i]->kind) {
			check_kind(bp_tests[i]);
			kinds++;
		}
	CHECK(kinds > 0);
	return tap_done();
}
