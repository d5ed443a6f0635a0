#include "stats/conn_hists.h"

#include <errno.h>
#include <stddef.h>

int bp_conn_hists_init(struct bp_conn_hists *h)
{
	h->latency = bp_histo_new();
	h->connect = bp_histo_new();
	if (h->latency && h->connect)
		return 0;
	bp_conn_hists_free(h);
	return -ENOMEM;
}

void bp_conn_hists_free(struct bp_conn_hists *h)
{
	bp_histo_free(h->latency);
	bp_histo_free(h->connect);
	h->latency = h->connect = NULL;
}

void bp_conn_hists_reset(struct bp_conn_hists *h)
{
	bp_histo_reset(h->latency);
	bp_histo_reset(h->connect);
}

void bp_conn_hists_merge(struct bp_conn_hists *dst, const struct bp_conn_hists *src)
{
	bp_histo_merge(dst->latency, src->latency);
	bp_histo_merge(dst->connect, src->connect);
}
