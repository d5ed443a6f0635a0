/*
 * Every kind the registry lists: named as its command, base units only, no name declared
 * twice, a meaning that fits a line, headline places 1..n without a gap; and its headline
 * the same as result/headline.c's table shows today, so reading it from the catalogue keeps
 * the output. A kind without a row there (gpio, rfc2544, latency) declares no headline: its
 * summary shows its first figures, as it does today.
 */
#include <string.h>

#include "cli/registry.h"
#include "result/headline.h"
#include "result/kind.h"

#include "tap.h"

static void check_kind(const struct bp_test *t)
{
	const struct bp_kind *k = t->kind;
	const struct bp_headline *h = bp_headline_of(t->name);
	unsigned places = 0;

	CHECK_STR(k->name, t->name);
	CHECK(k->nmetrics > 0);
	for (size_t i = 0; i < k->nmetrics; i++) {
		const struct bp_metric_decl *d = &k->metrics[i];

		if (!bp_unit_is_base(d->unit) || !d->meaning || !d->meaning[0] ||
		    strlen(d->meaning) > 80)
			CHECK_STR(d->name, "a base unit and a one-line meaning");
		for (size_t j = 0; j < i; j++)
			if (!strcmp(k->metrics[j].name, d->name))
				CHECK_STR(d->name, "declared once");
		if (d->headline)
			places++;
	}
	CHECK(h ? places > 0 : places == 0);
	for (unsigned p = 1; p <= places; p++) {
		size_t found = 0;
		const char *name = NULL;

		for (size_t i = 0; i < k->nmetrics; i++)
			if (k->metrics[i].headline == p) {
				found++;
				name = k->metrics[i].name;
			}
		CHECK_INT((int)found, 1);
		/* the same figures, in the same order, as the table the renderers read today */
		CHECK(p <= BP_HEADLINE_METRICS);
		if (h && p <= BP_HEADLINE_METRICS)
			CHECK_STR(name, h->metrics[p - 1] ? h->metrics[p - 1] : "(none)");
	}
	if (h && places < BP_HEADLINE_METRICS)
		CHECK(h->metrics[places] == NULL);
	CHECK_STR(k->headline_latency ? k->headline_latency : "(none)",
		  h && h->latency ? h->latency : "(none)");
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
