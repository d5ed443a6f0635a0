/*
 * `serve --metrics ADDR:PORT`: GET /metrics for Prometheus, on a listener of its own on the
 * server's event loop (the counters live there: no locks, no thread). A stranger may reach
 * it, so it is held to what a scraper needs, as the test port's door is: at most
 * SRV_METRICS_MAX_CONNS connections at once (the oldest shed for a new one: a real scrape
 * takes milliseconds), the whole exchange within the idle timeout, a request head of at
 * most BP_METRICS_REQUEST_MAX bytes, one request per connection, only GET /metrics (404 for
 * other paths, 405 for other methods, 400 for what is not HTTP), and what a flood makes it
 * log rate-limited. Nor does it take one of the descriptors kept for tests (io/fd_share.h):
 * a connection accepted as one of those is closed at once.
 */
#ifndef BP_SERVER_SERVER_METRICS_H
#define BP_SERVER_SERVER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/log.h"
#include "io/loop.h"

/* Prometheus scrapes one target once per interval: a few at once is plenty. */
#define SRV_METRICS_MAX_CONNS 16

struct srv;
struct srv_mconn;

struct srv_metrics {
	bool open;
	struct bp_flow listener;
	struct bp_timer resume;              /* the listener, after it rested (EMFILE) */
	struct srv_mconn *oldest, *newest;   /* connections, in the order accepted */
	int nconns;
	int fd_floor;                        /* accepted as this descriptor or above: closed */
	uint64_t shed, refused;
};

/* Listens on o->metrics_bind:o->metrics_port (when o->metrics); 0 or -errno with err. */
int srv_metrics_open(struct srv *s, char *err, size_t errlen);
/* Closes the listener and every connection. */
void srv_metrics_close(struct srv *s);

#endif
