/*
 * `boardperf serve`: the server end of the network tests, many clients at once, with
 * limits that refuse cleanly and an idle timeout that frees what a vanished client held.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/log_limit.h"
#include "core/peer_budget.h"
#include "core/test.h"
#include "export/om_store.h"
#include "http/http_serve_limit.h"
#include "http/http_server.h"
#include "proto/auth_psk.h"
#include "proto/iperf3_auth.h"
#include "server/server.h"
#include "result/result.h"

struct serve_params {
	int64_t port;
	const char *bind;
	int64_t max_clients;
	int64_t max_per_client;
	uint64_t max_duration;
	int64_t max_streams;
	double max_rate;
	uint64_t idle_timeout;
	int64_t max_pending, max_pending_per_addr;
	int64_t workers;
	bool one_off;
	bool daemon;
	const char *pidfile;
	const char *logfile;
	bool v4, v6;
	int64_t http_port;
	const char *rsa_private_key, *authorized_users;
	int64_t time_skew;
	int rsa_padding;
	uint64_t http_max_bytes;
	const char *psk_file;
	struct bp_psk psk;  /* read from psk_file by serve_check */
	const char *metrics;              /* --metrics ADDR:PORT as given */
	char metrics_host[256];           /* its parts (serve_check); "" every address */
	unsigned metrics_port;
};

/* In the order of enum bp_iperf3_padding. */
static const char *const padding_names[] = { "pkcs1", "oaep", NULL };

/*
 * The limits' defaults are bounds a lab user rarely meets and an attacker always does; the
 * docs/server.md, "Limits and their defaults", gives the reasons: 10 minutes covers iperf3's usual
 * 60-600 s runs; 4 tests per address leave 60 of the 64 slots to the other hosts, and
 * one subnet's share (server_limits.h) 16 to the other networks; 128
 * streams is iperf3's own -P maximum; the rate stays open so that a 10G or 100G link is
 * measured, not this server's cap (the duration bounds what one test can move).
 */
static const struct bp_opt serve_opts[] = {
	{ 'p', "port", BP_OPT_INT, offsetof(struct serve_params, port), "PORT", "5201", 1, 65535,
	  NULL, "port to listen on" },
	{ 'B', "bind", BP_OPT_STRING, offsetof(struct serve_params, bind), "ADDR", NULL, 0, 0,
	  NULL, "listen on this address only (default: all, IPv4 and IPv6)" },
	{ 0, "max-clients", BP_OPT_INT, offsetof(struct serve_params, max_clients), "N", "64", 1,
	  4096, NULL, "tests at once, of which one /24 or /64 holds at most three quarters; "
	  "more are refused with a message" },
	{ 0, "max-per-client", BP_OPT_INT, offsetof(struct serve_params, max_per_client), "N",
	  "4", 0, 4096, NULL, "tests at once from one client address; more are refused "
	  "(0: no limit)" },
	{ 0, "max-duration", BP_OPT_DURATION, offsetof(struct serve_params, max_duration), "S",
	  "600", 0, 86400, NULL, "refuse tests longer than S seconds, -O included (0: no limit)" },
	{ 0, "max-streams", BP_OPT_INT, offsetof(struct serve_params, max_streams), "N", "128",
	  1, 128, NULL, "refuse tests of more parallel streams (-P) than N" },
	{ 0, "max-rate", BP_OPT_RATE, offsetof(struct serve_params, max_rate), "RATE", "0", 0,
	  1e15, NULL, "refuse tests asking more in total (-b x -P); pace what the server sends "
	  "(0: no limit)" },
	{ 0, "idle-timeout", BP_OPT_DURATION, offsetof(struct serve_params, idle_timeout), "S",
	  "10", 0.1, 3600, NULL, "drop a client silent (or a test not moving data) this long" },
	{ 0, "max-pending", BP_OPT_INT, offsetof(struct serve_params, max_pending), "N", "256", 1,
	  65536, NULL, "connections that have not sent their cookie yet; the oldest is shed" },
	{ 0, "max-pending-per-addr", BP_OPT_INT,
	  offsetof(struct serve_params, max_pending_per_addr), "N", "32", 1, 65536, NULL,
	  "the same from one IPv4 address or IPv6 /64" },
	{ 0, "workers", BP_OPT_INT, offsetof(struct serve_params, workers), "N", "0", 0, 1024,
	  NULL, "data worker threads (0: one per core)" },
	{ '1', "one-off", BP_OPT_FLAG, offsetof(struct serve_params, one_off), NULL, NULL, 0, 0,
	  NULL, "exit after one test" },
	{ 'D', "daemon", BP_OPT_FLAG, offsetof(struct serve_params, daemon), NULL, NULL, 0, 0,
	  NULL, "run in the background" },
	{ 'I', "pidfile", BP_OPT_STRING, offsetof(struct serve_params, pidfile), "FILE", NULL, 0,
	  0, NULL, "write the server's process ID here (removed at exit)" },
	{ 0, "logfile", BP_OPT_STRING, offsetof(struct serve_params, logfile), "FILE", NULL, 0, 0,
	  NULL, "append log lines here instead of stderr" },
	{ '4', "version4", BP_OPT_FLAG, offsetof(struct serve_params, v4), NULL, NULL, 0, 0, NULL,
	  "IPv4 only" },
	{ '6', "version6", BP_OPT_FLAG, offsetof(struct serve_params, v6), NULL, NULL, 0, 0, NULL,
	  "IPv6 only" },
	{ 0, "http", BP_OPT_INT, offsetof(struct serve_params, http_port), "PORT", "0", 0, 65535,
	  NULL, "also answer HTTP on PORT: bodies sized by path (/0, /1k, /64k, /1m; 0: off)" },
	{ 0, "rsa-private-key-path", BP_OPT_STRING,
	  offsetof(struct serve_params, rsa_private_key), "FILE", NULL, 0, 0, NULL,
	  "lock the server with iperf3's --username: the RSA key (PEM) tokens are decrypted with" },
	{ 0, "authorized-users-path", BP_OPT_STRING,
	  offsetof(struct serve_params, authorized_users), "FILE", NULL, 0, 0, NULL,
	  "the users it lets in: lines USER,sha256(\"{USER}PASSWORD\") in hex, as iperf3's" },
	{ 0, "time-skew-threshold", BP_OPT_INT, offsetof(struct serve_params, time_skew), "S",
	  "10", 0, 86400, NULL, "refuse a token whose time is more than S seconds off this clock" },
	{ 0, "rsa-padding", BP_OPT_CHOICE, offsetof(struct serve_params, rsa_padding), "PAD",
	  "pkcs1", 0, 0, padding_names,
	  "the token's padding: pkcs1 (iperf3 up to 3.16, Debian 12's 3.12), oaep (3.17 on)" },
	{ 0, "http-max-bytes", BP_OPT_SIZE, offsetof(struct serve_params, http_max_bytes),
	  "SIZE", BP_HTTP_MAX_BYTES_DEFAULT_TEXT, 0, 1125899906842624.0, NULL,
	  "bytes one HTTP connection may be sent, then it closes (0: no limit)" },
	{ 0, "metrics", BP_OPT_STRING, offsetof(struct serve_params, metrics), "ADDR:PORT", NULL,
	  0, 0, NULL, "also answer GET /metrics for Prometheus on ADDR:PORT (:PORT: every "
	  "address): the server's counters, and the stored figures with --db" },
	{ 0, "psk", BP_OPT_STRING, offsetof(struct serve_params, psk_file), "FILE", NULL, 0, 0,
	  NULL, "only clients proving the pre-shared key in FILE may test (mode 600, >= 16 bytes)" },
	BP_OPT_END_WITHOUT(BP_COMMON_JSON | BP_COMMON_CSV | BP_COMMON_MEASURING),
};

/* "127.0.0.1:9201", "[::1]:9201", "localhost:9201", ":9201" into host and port. */
static int parse_metrics_addr(struct serve_params *p, char *err, size_t errlen)
{
	const char *s = p->metrics, *colon = strrchr(s, ':'), *host = s;
	size_t hlen = colon ? (size_t)(colon - s) : 0;
	char *end;
	long port;

	if (!colon)
		goto bad;
	if (hlen >= 2 && s[0] == '[' && s[hlen - 1] == ']') {
		host++;
		hlen -= 2;
	} else if (memchr(s, ':', hlen)) {
		goto bad;  /* an IPv6 address needs its brackets before the port */
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || port < 0 || port > 65535 ||
	    hlen >= sizeof(p->metrics_host))
		goto bad;
	memcpy(p->metrics_host, host, hlen);
	p->metrics_host[hlen] = '\0';
	p->metrics_port = (unsigned)port;
	if (p->metrics_port && (p->metrics_port == p->port || p->metrics_port == p->http_port)) {
		snprintf(err, errlen, "--metrics '%s': port %u is taken by %s; expected another one",
			 s, p->metrics_port, p->metrics_port == p->port ? "-p" : "--http");
		return -EINVAL;
	}
	return 0;
bad:
	snprintf(err, errlen, "--metrics '%s': expected ADDR:PORT with a port of 0 to 65535 "
		 "(127.0.0.1:9201, [::1]:9201, :9201 for every address)", s);
	return -EINVAL;
}

static int serve_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	struct serve_params *p = params;

	if (bp_check_no_positional(parsed, err, errlen))
		return -EINVAL;
	if (bp_check_exclusive(p->v4, "-4", p->v6, "-6", err, errlen))
		return -EINVAL;
	if (p->http_port && p->http_port == p->port) {
		snprintf(err, errlen, "--http %lld: the same port as -p; expected another one",
			 (long long)p->http_port);
		return -EINVAL;
	}
	if (!p->rsa_private_key != !p->authorized_users) {
		snprintf(err, errlen, "--%s '%s' needs --%s too: a locked server needs its key "
			 "and its users", p->rsa_private_key ? "rsa-private-key-path" :
			 "authorized-users-path", p->rsa_private_key ? p->rsa_private_key :
			 p->authorized_users, p->rsa_private_key ? "authorized-users-path" :
			 "rsa-private-key-path");
		return -EINVAL;
	}
	if (p->metrics && parse_metrics_addr(p, err, errlen))
		return -EINVAL;
	if (p->pidfile && !p->daemon) {
		snprintf(err, errlen, "--pidfile '%s' needs -D: only a daemon writes one",
			 p->pidfile);
		return -EINVAL;
	}
	/* Read now, before a daemon forks, so that a bad key file is said on the terminal. */
	if (p->psk_file && bp_psk_load(p->psk_file, &p->psk, err, errlen))
		return -EINVAL;
	return 0;
}

/* serve --metrics --db FILE: each scrape reads the stored figures afresh (docs/results.md,
 * "Prometheus"). */
struct metrics_store {
	const char *db;
};

static void add_stored(void *arg, FILE *out, enum bp_om_format f)
{
	struct metrics_store *m = arg;
	char err[320];
	int rc = bp_om_store_write(m->db, 0, out, f, NULL, err, sizeof(err));

	if (rc)
		bp_warn_peer(NULL, "metrics: stored figures left out of the scrape: %s", err);
	bp_om_family(out, f, "boardperf_store_readable", BP_OM_GAUGE, "",
		     "1 when this scrape read the stored figures of --db, 0 when it could not "
		     "(the server's log says why)");
	bp_om_sample(out, BP_OM_GAUGE, "boardperf_store_readable", NULL, 0, rc ? 0 : 1);
}

/* The daemon tells its parent through this pipe whether it is listening. */
struct ready_pipe {
	int fd;
	const char *pidfile;
};

static void daemon_ready(void *arg, int rc, const char *err, unsigned port,
			 struct bp_loop *loop)
{
	struct ready_pipe *rp = arg;
	char msg[320];
	FILE *f;

	(void)port;
	(void)loop;
	if (!rc && rp->pidfile) {
		f = fopen(rp->pidfile, "we");
		if (!f) {
			rc = -errno;
			snprintf(msg, sizeof(msg), "--pidfile '%s': %s", rp->pidfile, strerror(errno));
			err = msg;
		} else {
			fprintf(f, "%ld\n", (long)getpid());
			fclose(f);
		}
	}
	if (rp->fd >= 0) {
		dprintf(rp->fd, "%s", rc ? err : "");
		close(rp->fd);
		rp->fd = -1;
	}
}

/* Fork; the parent waits until the child listens (exit 0) or reports why not (exit 1). */
static int daemonize(struct ready_pipe *rp, const char *logfile, char *err, size_t errlen)
{
	int p[2], nul;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot daemonize: %s", strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot daemonize: %s", strerror(errno));
		return -errno;
	}
	if (pid > 0) {
		char buf[320] = "";
		ssize_t n;

		close(p[1]);
		n = read(p[0], buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			bp_error("%s", buf);
			_exit(1);
		}
		_exit(n == 0 ? 0 : 1);
	}
	close(p[0]);
	rp->fd = p[1];
	setsid();
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, STDIN_FILENO);
		dup2(nul, STDOUT_FILENO);
		if (!logfile)
			dup2(nul, STDERR_FILENO);
		close(nul);
	}
	return 0;
}

static int open_logfile(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0) {
		snprintf(err, errlen, "--logfile '%s': %s", path, strerror(errno));
		return -EINVAL;
	}
	dup2(fd, STDERR_FILENO);
	close(fd);
	return 0;
}

/*
 * The HTTP responder runs beside the test server on threads of its own (http_server.h says
 * why), started after a daemon's fork (threads do not survive one) and before the test
 * server listens, so that -D reports a busy HTTP port as it reports a busy test port.
 */
static int start_http(const struct serve_params *p, struct bp_peer_budget *budget,
		      struct bp_http_server **out, char *err, size_t errlen)
{
	struct bp_http_server_opts ho = {
		.bind = p->bind, .port = (unsigned)p->http_port,
		.family = p->v4 ? BP_FAMILY_V4 : p->v6 ? BP_FAMILY_V6 : BP_FAMILY_ANY,
		.workers = (int)p->workers, .idle_timeout_ns = p->idle_timeout,
		.max_bytes = p->http_max_bytes ? p->http_max_bytes : UINT64_MAX,
		.budget = budget,
	};

	*out = bp_http_server_start(&ho, err, errlen);
	if (!*out)
		return -EADDRINUSE;
	bp_info("http: listening on port %u", bp_http_server_port(*out));
	return 0;
}

static int serve_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		     char *err, size_t errlen)
{
	const struct serve_params *p = params;
	struct ready_pipe rp = { .fd = -1, .pidfile = p->pidfile };
	struct bp_http_server *http = NULL;
	struct metrics_store stored = { .db = ctx->common->db };
	/* One budget for the test port's and the HTTP responder's peers together. */
	struct bp_peer_budget budget;
	struct bp_server_opts o = {
		.bind = p->bind, .port = (unsigned)p->port,
		.family = p->v4 ? BP_FAMILY_V4 : p->v6 ? BP_FAMILY_V6 : BP_FAMILY_ANY,
		.max_clients = (int)p->max_clients, .max_per_client = (int)p->max_per_client,
		.max_duration_ns = p->max_duration, .max_streams = (int)p->max_streams,
		.max_rate = p->max_rate, .idle_timeout_ns = p->idle_timeout,
		.max_pending = (int)p->max_pending,
		.max_pending_per_addr = (int)p->max_pending_per_addr,
		.workers = (int)p->workers, .max_tests = p->one_off ? 1 : 0,
		.psk = p->psk_file ? &p->psk : NULL,
		.budget = &budget,
		.metrics = p->metrics != NULL,
		.metrics_bind = p->metrics_host[0] ? p->metrics_host : NULL,
		.metrics_port = p->metrics_port,
		.metrics_extra = p->metrics && ctx->common->db ? add_stored : NULL,
		.metrics_arg = &stored,
	};
	int rc = 0;

	(void)r;
	bp_peer_budget_init(&budget, BP_SERVER_PEER_BUDGET);
	/* Keys and users are read before a daemon forks, so a broken file is reported here. */
	if (p->rsa_private_key) {
		o.iperf3_auth = bp_iperf3_auth_new(p->rsa_private_key, p->authorized_users,
						   (int)p->time_skew,
						   (enum bp_iperf3_padding)p->rsa_padding, err, errlen);
		if (!o.iperf3_auth)
			return -EINVAL;
		bp_info("locked: iperf3 --username for the users in '%s' (%s padding, skew %lld s)",
			p->authorized_users, padding_names[p->rsa_padding], (long long)p->time_skew);
	}
	/*
	 * One malloc arena for all threads: the data workers allocate next to nothing, and a
	 * per-thread arena would keep ~1 MiB of mostly empty heap resident for each of them.
	 */
	mallopt(M_ARENA_MAX, 1);
	if (p->logfile)
		rc = open_logfile(p->logfile, err, errlen);
	if (!rc && p->daemon) {
		rc = daemonize(&rp, p->logfile, err, errlen);
		o.ready = daemon_ready;
		o.ready_arg = &rp;
	}
	if (!rc && p->http_port)
		rc = start_http(p, &budget, &http, err, errlen);
	if (rc && p->daemon)
		daemon_ready(&rp, rc, err, 0, NULL);  /* the parent reports why and exits 1 */
	if (!rc && o.psk)
		bp_info("locked: a test needs the pre-shared key in '%s' (--psk)", p->psk_file);
	if (!rc)
		rc = bp_server_run(&o, err, errlen);
	bp_http_server_stop(http);
	bp_iperf3_auth_free(o.iperf3_auth);
	if (p->daemon && p->pidfile)
		unlink(p->pidfile);
	return rc;
}

const struct bp_test bp_cmd_serve = {
	.name = "serve",
	.summary = "the far end of the network tests (and of stock iperf3): many clients, limits",
	.synopsis = "[-p PORT] [-B ADDR] [--max-clients N] [--max-per-client N] "
		    "[--max-duration S] [--max-streams N] [--max-rate R] [--http PORT] "
		    "[--http-max-bytes SIZE] [--metrics ADDR:PORT] [--psk FILE] "
		    "[--rsa-private-key-path FILE --authorized-users-path FILE] [-D]",
	.opts = serve_opts,
	.params_size = sizeof(struct serve_params),
	.check = serve_check,
	.run = serve_run,
	.no_result = true,
};
