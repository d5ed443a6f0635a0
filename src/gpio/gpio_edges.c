#include "gpio/gpio_edges.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/gpio.h>

#include "gpio/gpio_errors.h"
#include "gpio/gpio_lines.h"

/* the kernel's largest event FIFO per request (16 x GPIO_V2_LINES_MAX) */
#define EVENT_BUFFER 1024
/* edges the kernel still has in flight when the loop ends */
#define DRAIN_NS 20000000L

struct bp_gpio_edges {
	int fd;
	pthread_t thread;
	atomic_bool stop;
	struct bp_gpio_pulses *out;
};

static void read_events(struct bp_gpio_edges *e)
{
	struct gpio_v2_line_event ev[64];
	ssize_t n;

	while ((n = read(e->fd, ev, sizeof(ev))) > 0)
		for (size_t i = 0; i < (size_t)n / sizeof(ev[0]); i++)
			bp_gpio_pulses_feed(e->out, ev[i].timestamp_ns,
					    ev[i].id == GPIO_V2_LINE_EVENT_RISING_EDGE,
					    ev[i].line_seqno);
}

static void *reader(void *arg)
{
	struct bp_gpio_edges *e = arg;
	struct pollfd p = { .fd = e->fd, .events = POLLIN };

	while (!atomic_load(&e->stop)) {
		if (poll(&p, 1, 50) > 0)
			read_events(e);
	}
	read_events(e);  /* non-blocking: what is left */
	return NULL;
}

static int request(const struct bp_gpio_target *t, int chip_fd, unsigned line)
{
	struct gpio_v2_line_request req;

	memset(&req, 0, sizeof(req));
	req.offsets[0] = line;
	req.num_lines = 1;
	req.event_buffer_size = EVENT_BUFFER;
	req.config.flags = GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING |
			   GPIO_V2_LINE_FLAG_EDGE_FALLING;
	snprintf(req.consumer, sizeof(req.consumer), "boardperf-loop");
	(void)t;
	if (ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, &req))
		return -errno;
	return req.fd;
}

static int open_input(const struct bp_gpio_target *t, unsigned line, char *err,
		      size_t errlen, const char **code)
{
	struct bp_gpio_chip chip = { .chardev = true };
	struct bp_gpio_line_info li;
	struct bp_gpio_target in = *t;
	bool v1 = false;
	int chip_fd, fd;

	in.line = line;
	snprintf(chip.path, sizeof(chip.path), "%s", t->chip_path);
	chip_fd = bp_gpio_chip_open(t->root, &chip);
	if (chip_fd < 0) {
		bp_gpio_errno_message(err, errlen, code, chip_fd, "--loop-to: opening %s",
				      t->chip_path);
		return chip_fd;
	}
	fd = bp_gpio_line_info(chip_fd, line, &li, &v1);
	if (!fd && li.used && !t->force) {
		bp_gpio_busy_message(err, errlen, code, &in, li.consumer);
		fd = -EBUSY;
	} else if (!fd && v1) {
		snprintf(err, errlen, "--loop-to: edge timestamps need the GPIO uAPI v2 "
			 "(Linux 5.10 or later)");
		*code = "unsupported";
		fd = -EOPNOTSUPP;
	} else if (!fd) {
		fd = request(t, chip_fd, line);
		if (fd < 0)
			bp_gpio_errno_message(err, errlen, code, fd, "--loop-to: %s line %u: "
					      "requesting it for edge events", t->chip_name, line);
	} else {
		bp_gpio_errno_message(err, errlen, code, fd, "--loop-to: %s line %u: reading "
				      "its info", t->chip_name, line);
	}
	close(chip_fd);
	return fd;
}

struct bp_gpio_edges *bp_gpio_edges_start(const struct bp_gpio_target *t, unsigned line,
					  struct bp_gpio_pulses *out, char *err,
					  size_t errlen, const char **code)
{
	struct bp_gpio_edges *e = calloc(1, sizeof(*e));
	int rc;

	if (!e) {
		snprintf(err, errlen, "out of memory");
		*code = "io";
		return NULL;
	}
	e->out = out;
	atomic_init(&e->stop, false);
	e->fd = open_input(t, line, err, errlen, code);
	if (e->fd < 0) {
		free(e);
		return NULL;
	}
	/* non-blocking, so that the last drain cannot wait for an edge that never comes */
	fcntl(e->fd, F_SETFL, fcntl(e->fd, F_GETFL) | O_NONBLOCK);
	rc = pthread_create(&e->thread, NULL, reader, e);
	if (rc) {
		bp_gpio_errno_message(err, errlen, code, -rc, "--loop-to: starting the reader");
		close(e->fd);
		free(e);
		return NULL;
	}
	return e;
}

void bp_gpio_edges_stop(struct bp_gpio_edges *e)
{
	struct timespec drain = { 0, DRAIN_NS };

	if (!e)
		return;
	nanosleep(&drain, NULL);
	atomic_store(&e->stop, true);
	pthread_join(e->thread, NULL);
	close(e->fd);
	free(e);
}
