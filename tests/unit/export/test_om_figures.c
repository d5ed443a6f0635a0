/*
 * Stored figures as families (om_figures.h) and the atomic file (om_file.h): the exact
 * text for a known set, each family once with its samples together, clashes and values
 * that are not finite left out, the newest result's time per board, label and test.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/om_figures.h"
#include "export/om_file.h"
#include "kinds.h"
#include "tap.h"

static const char want_om[] =
	"# TYPE boardperf_receiver_bitrate_bytes_per_second gauge\n"
	"# UNIT boardperf_receiver_bitrate_bytes_per_second bytes_per_second\n"
	"# HELP boardperf_receiver_bitrate_bytes_per_second boardperf's receiver.bitrate "
	"(stored in bit/s): the newest figure per board, label and test\n"
	"boardperf_receiver_bitrate_bytes_per_second{test=\"tcp\",board=\"Orange Pi Zero\","
	"label=\"opi\"} 11750000\n"
	"boardperf_receiver_bitrate_bytes_per_second{test=\"tcp\",board=\"Raspberry Pi 3 "
	"\\\"B\\\"\",label=\"rpi\\\\3\"} 11700000\n"
	"boardperf_receiver_bitrate_bytes_per_second{test=\"udp\",board=\"Orange Pi Zero\","
	"label=\"opi\"} 1250000\n"
	"# TYPE boardperf_sha256_bytes_per_second gauge\n"
	"# UNIT boardperf_sha256_bytes_per_second bytes_per_second\n"
	"# HELP boardperf_sha256_bytes_per_second boardperf's sha256.<block_size> (stored in B/s): the "
	"newest figure per board, label and test\n"
	"boardperf_sha256_bytes_per_second{test=\"cpu\",board=\"Orange Pi Zero\",label=\"opi\","
	"block_size=\"16\"} 20000000\n"
	"boardperf_sha256_bytes_per_second{test=\"cpu\",board=\"Orange Pi Zero\",label=\"opi\","
	"block_size=\"8192\"} 90000000\n"
	"# TYPE boardperf_result_timestamp_seconds gauge\n"
	"# UNIT boardperf_result_timestamp_seconds seconds\n"
	"# HELP boardperf_result_timestamp_seconds when the newest result the figures of this "
	"board, label and test come from was measured (Unix time)\n"
	"boardperf_result_timestamp_seconds{test=\"cpu\",board=\"Orange Pi Zero\","
	"label=\"opi\"} 1700000300\n"
	"boardperf_result_timestamp_seconds{test=\"tcp\",board=\"Orange Pi Zero\","
	"label=\"opi\"} 1700000100\n"
	"boardperf_result_timestamp_seconds{test=\"tcp\",board=\"Raspberry Pi 3 \\\"B\\\"\","
	"label=\"rpi\\\\3\"} 1700000000\n"
	"boardperf_result_timestamp_seconds{test=\"udp\",board=\"Orange Pi Zero\","
	"label=\"opi\"} 1700000200\n";

static void fill_set(struct bp_om_figures *set)
{
	static const char opi[] = "Orange Pi Zero", rpi[] = "Raspberry Pi 3 \"B\"";

	/* In no particular order, as a query might hand them. */
	CHECK_INT(bp_om_figures_add(set, opi, "opi", "cpu", "sha256.8192", "B/s", 9e7,
				    1700000300), 0);
	CHECK_INT(bp_om_figures_add(set, rpi, "rpi\\3", "tcp", "receiver.bitrate", "bit/s",
				    93.6e6, 1700000000), 0);
	CHECK_INT(bp_om_figures_add(set, opi, "opi", "udp", "receiver.bitrate", "bit/s", 1e7,
				    1700000200), 0);
	CHECK_INT(bp_om_figures_add(set, opi, "opi", "tcp", "receiver.bitrate", "bit/s", 94e6,
				    1700000100), 0);
	CHECK_INT(bp_om_figures_add(set, opi, "opi", "cpu", "sha256.16", "B/s", 2e7,
				    1700000250), 0);
	/* Not finite, no name: counted, not written. */
	CHECK_INT(bp_om_figures_add(set, opi, "opi", "tcp", "jitter", "ns", NAN, 1700000100), 0);
	CHECK_INT(bp_om_figures_add(set, opi, "opi", "tcp", "sender.bitrate", "bit/s", INFINITY,
				    1700000100), 0);
	CHECK_INT(bp_om_figures_add(set, opi, "opi", "tcp", "...", "B", 1, 1700000100), 0);
	CHECK_INT(bp_om_figures_add(set, opi, "opi", "tcp", NULL, "B", 1, 1700000100), 0);
}

static char *render(enum bp_om_format f, struct bp_om_figures *set)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	bp_om_figures_write(set, out, f);
	fclose(out);
	return buf;
}

static int fill_ok(FILE *out, void *arg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	fputs(arg, out);
	return 0;
}

static int fill_fails(FILE *out, void *arg, char *err, size_t errlen)
{
	(void)arg;
	fputs("half a file", out);
	snprintf(err, errlen, "the store went away");
	return -EIO;
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries in dir besides . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void check_file(void)
{
	char dir[] = "/tmp/bp-om-file-XXXXXX", path[128], bad[160], err[256];
	struct stat st;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/boardperf.prom", dir);
	CHECK_INT(bp_om_write_file(path, fill_ok, "first\n", err, sizeof(err)), 0);
	CHECK_STR(slurp(path), "first\n");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
	/* A failure keeps the old file and leaves no temporary one. */
	CHECK_INT(bp_om_write_file(path, fill_fails, NULL, err, sizeof(err)), -EIO);
	CHECK_STR(err, "the store went away");
	CHECK_STR(slurp(path), "first\n");
	CHECK_INT(entries(dir), 1);
	CHECK_INT(bp_om_write_file(path, fill_ok, "second\n", err, sizeof(err)), 0);
	CHECK_STR(slurp(path), "second\n");
	CHECK_INT(entries(dir), 1);
	/* A folder that does not exist: the message names the file. */
	snprintf(bad, sizeof(bad), "%s/no/such.prom", dir);
	CHECK_INT(bp_om_write_file(bad, fill_ok, "x", err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, bad) != NULL);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	struct bp_om_figures set = { 0 };
	char *got;
	install_all_kinds(); /* label parts are the kinds' (result/kind.h) */

	fill_set(&set);
	CHECK_INT(set.n, 5);
	CHECK_INT(set.not_finite, 2);
	CHECK_INT(set.unnamed, 2);
	got = render(BP_OM_OPENMETRICS, &set);
	CHECK_STR(got, want_om);
	free(got);
	/* The text format: the same without the UNIT lines. */
	got = render(BP_OM_PROMETHEUS, &set);
	CHECK(got && !strstr(got, "# UNIT") && strstr(got, "label=\"opi\"} 11750000\n"));
	free(got);
	CHECK_INT(set.clashes, 0);
	bp_om_figures_free(&set);

	/* Two figures that come out as one series: the first in order stays. */
	CHECK_INT(bp_om_figures_add(&set, "b", "l", "x", "a-b", "B", 1, 1), 0);
	CHECK_INT(bp_om_figures_add(&set, "b", "l", "x", "a_b", "B", 2, 1), 0);
	/* A family boardperf writes itself is not a figure's. */
	CHECK_INT(bp_om_figures_add(&set, "b", "l", "rr", "server.tests", "count", 6, 1), 0);
	/* Labels that differ only in bytes that are not UTF-8 are written alike: one series. */
	CHECK_INT(bp_om_figures_add(&set, "b\x97", "l", "x", "q", "B", 4, 1), 0);
	CHECK_INT(bp_om_figures_add(&set, "b\x95", "l", "x", "q", "B", 5, 1), 0);
	/* A unitless figure whose name ends in a unit: a family of another unit. */
	CHECK_INT(bp_om_figures_add(&set, "b", "l", "x", "a.b.bytes", "count", 3, 1), 0);
	got = render(BP_OM_OPENMETRICS, &set);
	CHECK_INT(set.clashes, 4);
	CHECK(got && strstr(got, "boardperf_a_b_bytes{test=\"x\",board=\"b\",label=\"l\"} 1\n"));
	CHECK(got && strstr(got, "boardperf_q_bytes{test=\"x\",board=\"b?\",label=\"l\"} 4\n"));
	CHECK(got && !strstr(got, "} 2\n") && !strstr(got, "} 3\n") && !strstr(got, "} 5\n") &&
	      !strstr(got, "} 6\n"));
	free(got);
	bp_om_figures_free(&set);
	/* No figures, no families. */
	got = render(BP_OM_OPENMETRICS, &set);
	CHECK_STR(got, "");
	free(got);

	check_file();
	return tap_done();
}
