/* The request of a scrape (server/metrics_request.h): statuses, the Accept header, limits. */
#include <stdlib.h>

#include "server/metrics_request.h"
#include "tap.h"

#define PROM_ACCEPT "application/openmetrics-text;version=1.0.0,application/openmetrics-text;" \
	"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

static const struct {
	const char *req;
	int status;
	enum bp_om_format format;
} cases[] = {
	{ "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200, BP_OM_PROMETHEUS },
	{ "GET /metrics HTTP/1.0\r\n\r\n", 200, BP_OM_PROMETHEUS },
	{ "GET /metrics HTTP/1.1\nHost: x\n\n", 200, BP_OM_PROMETHEUS },
	/* What Prometheus 2.42 sends. */
	{ "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: " PROM_ACCEPT "\r\n\r\n", 200,
	  BP_OM_OPENMETRICS },
	{ "GET /metrics HTTP/1.1\r\naccept:application/openmetrics-text\r\n\r\n", 200,
	  BP_OM_OPENMETRICS },
	{ "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text; version=0.0.1\r\n\r\n",
	  200, BP_OM_OPENMETRICS },
	/* A version we do not write, q=0, a lower q, a tie: the text format. */
	{ "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=2.0.0\r\n\r\n",
	  200, BP_OM_PROMETHEUS },
	{ "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;q=0\r\n\r\n", 200,
	  BP_OM_PROMETHEUS },
	{ "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;q=0.3, text/plain;q=0.5"
	  "\r\n\r\n", 200, BP_OM_PROMETHEUS },
	{ "GET /metrics HTTP/1.1\r\nAccept: */*\r\n\r\n", 200, BP_OM_PROMETHEUS },
	{ "GET /metrics HTTP/1.1\r\nAccept: text/plain;version=0.0.4\r\n\r\n", 200,
	  BP_OM_PROMETHEUS },
	{ "GET /metrics HTTP/1.1\r\nAccept: text/html, application/openmetrics-text;q=0.9\r\n\r\n",
	  200, BP_OM_OPENMETRICS },
	{ "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;q=1.5\r\n\r\n", 200,
	  BP_OM_PROMETHEUS },
	/* Two Accept headers: the best of both. */
	{ "GET /metrics HTTP/1.1\r\nAccept: text/plain;q=0.2\r\nAccept: "
	  "application/openmetrics-text;q=0.4\r\n\r\n", 200, BP_OM_OPENMETRICS },
	{ "GET /metrics?name[]=up HTTP/1.1\r\n\r\n", 200, BP_OM_PROMETHEUS },
	/* Only GET /metrics. */
	{ "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 405, BP_OM_PROMETHEUS },
	{ "HEAD /metrics HTTP/1.1\r\n\r\n", 405, BP_OM_PROMETHEUS },
	{ "GET / HTTP/1.1\r\n\r\n", 404, BP_OM_PROMETHEUS },
	{ "GET /metricsx HTTP/1.1\r\n\r\n", 404, BP_OM_PROMETHEUS },
	{ "DELETE /x HTTP/1.1\r\n\r\n", 404, BP_OM_PROMETHEUS },
	/* Not HTTP/1. */
	{ "GET /metrics HTTP/2.0\r\n\r\n", 400, BP_OM_PROMETHEUS },
	{ "GET /metrics\r\n\r\n", 400, BP_OM_PROMETHEUS },
	{ "GET  /metrics HTTP/1.1\r\n\r\n", 400, BP_OM_PROMETHEUS },
	{ "G(T /metrics HTTP/1.1\r\n\r\n", 400, BP_OM_PROMETHEUS },
	{ "GET /met\x01rics HTTP/1.1\r\n\r\n", 400, BP_OM_PROMETHEUS },
	{ "GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n", 400, BP_OM_PROMETHEUS },
	{ "GET /metrics HTTP/1.1\r\n: empty name\r\n\r\n", 400, BP_OM_PROMETHEUS },
	{ "GET /metrics HTTP/1.1\r\nBad Name: x\r\n\r\n", 400, BP_OM_PROMETHEUS },
	{ "\r\n\r\n", 400, BP_OM_PROMETHEUS },
	{ "\x16\x03\x01\x02\x01\xfc\x03\x03\n\n", 400, BP_OM_PROMETHEUS },
};

int main(void)
{
	struct bp_metrics_request r;
	char *big;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *q = cases[i].req;
		size_t n = strlen(q);
		bool early = false;

		CHECK(bp_metrics_request_parse(q, n, &r));
		CHECK_INT(r.status, cases[i].status);
		if (r.status == 200)
			CHECK_INT(r.format, cases[i].format);
		/* Every prefix before the blank line is "not yet". */
		for (size_t k = 0; k + 1 < n; k++)
			early |= bp_metrics_request_parse(q, k, &r) && k + 2 < n;
		CHECK(!early);
	}
	/* A head that does not end within the limit; one that ends past it. */
	big = malloc(BP_METRICS_REQUEST_MAX + 64);
	memset(big, 'a', BP_METRICS_REQUEST_MAX + 64);
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	CHECK(!bp_metrics_request_parse(big, BP_METRICS_REQUEST_MAX - 1, &r));
	CHECK(bp_metrics_request_parse(big, BP_METRICS_REQUEST_MAX, &r));
	CHECK_INT(r.status, 431);
	memcpy(big + BP_METRICS_REQUEST_MAX + 10, "\r\n\r\n", 4);
	CHECK(bp_metrics_request_parse(big, BP_METRICS_REQUEST_MAX + 14, &r));
	CHECK_INT(r.status, 431);
	/* Just within it. */
	memcpy(big + BP_METRICS_REQUEST_MAX - 8, "\r\n\r\n", 4);
	CHECK(bp_metrics_request_parse(big, BP_METRICS_REQUEST_MAX - 4, &r));
	CHECK_INT(r.status, 200);
	free(big);

	/* q-values by themselves. */
	{
		int om = -1, text = -1;

		bp_metrics_accept(" application/openmetrics-text ; q=0.125 , text/* ;q=1.000", 55,
				  &om, &text);
		CHECK_INT(om, 125);
		CHECK_INT(text, 1000);
		om = text = -1;
		bp_metrics_accept("application/openmetrics-text;q=.5,text/plain;q=0.5x", 51, &om,
				  &text);
		CHECK_INT(om, -1);
		CHECK_INT(text, -1);
		om = text = -1;
		bp_metrics_accept(",,;,", 4, &om, &text);
		CHECK_INT(om, -1);
		CHECK_INT(text, -1);
	}
	return tap_done();
}
