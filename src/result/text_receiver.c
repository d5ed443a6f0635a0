#include "result/text_receiver.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "result/render.h"
#include "result/text_table.h"

static bool param_true(const struct bp_result *r, const char *key)
{
	return json_is_true(json_object_get(r->params, key));
}

static double figure(const struct bp_interval *iv, const char *name)
{
	for (size_t j = 0; j < iv->nmetrics; j++)
		if (!strcmp(iv->metrics[j].name, name))
			return iv->metrics[j].value;
	return NAN;
}

bool bp_text_receiver_has(const struct bp_result *r)
{
	if (param_true(r, "reverse") ||
	    param_true(r, "bidir"))
		return false;
	for (size_t i = 0; i < r->nintervals; i++)
		if (isfinite(figure(&r->intervals[i], "receiver.bitrate")))
			return true;
	return false;
}

/* "3/8550 (0.035 %)": lost of the datagrams the receiver expected, as iperf3 writes it. */
static void lost_total(char *buf, size_t len, const struct bp_interval *iv)
{
	double lost = figure(iv, "lost"), pps = figure(iv, "receiver.pps");
	double span_s = figure(iv, "receiver.span") / 1e9;
	double total = round(pps * span_s) + lost;

	if (!isfinite(lost) || !isfinite(total) || total <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f/%.0f (%.2g %%)", lost, total, lost / total * 100);
}

static int receiver_row(struct bp_table *t, const struct bp_interval *iv)
{
	char span[40], rate[BP_TEXT_VALUE_LEN], jitter[BP_TEXT_VALUE_LEN], lost[64];
	double j = figure(iv, "jitter");

	snprintf(span, sizeof(span), "%.2f-%.2f", iv->start, iv->end);
	bp_text_value(rate, figure(iv, "receiver.bitrate"), "bit/s");
	if (isfinite(j))
		bp_text_value(jitter, j, "ns");
	else
		snprintf(jitter, sizeof(jitter), "-");
	lost_total(lost, sizeof(lost), iv);
	return bp_table_add(t, (const char *[]){ span, rate, jitter, lost });
}

int bp_text_receiver_print(FILE *out, const struct bp_result *r)
{
	struct bp_table t;
	int err = bp_table_init(&t, 4, 0);

	if (err)
		return err;
	fputs("receiver, per interval (the server sends these at the end of the test):\n", out);
	/* iperf3's "Interval" column: one interval's stretch, "0.00-1.00" */
	for (size_t c = 0; c < 4; c++)
		t.right[c] = true;
	err = bp_table_add(&t, (const char *[]){ "interval", "bitrate", "jitter",
						  "lost/total" });
	for (size_t i = 0; !err && i < r->nintervals; i++)
		err = receiver_row(&t, &r->intervals[i]);
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
	return err;
}
