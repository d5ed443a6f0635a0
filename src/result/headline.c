#include "result/headline.h"

#include <stddef.h>
#include <string.h>

static const struct bp_headline headlines[] = {
	{ "cpu", { "rsa2048.sign", "sha256.8192", "aes-128-gcm.8192", NULL }, NULL },
	{ "mem", { "memcpy.bandwidth", "memcpy.bandwidth.all", "latency.64MiB", NULL }, NULL },
	{ "disk", { "reads.rate", "writes.rate", "fsyncs.rate", NULL }, NULL },
	{ "tcp", { "receiver.bitrate", "sender.retransmits", NULL }, NULL },
	{ "udp", { "receiver.pps", "loss.percent", NULL }, NULL },
	{ "rr", { "transactions.rate", NULL }, "transaction" },
	{ "crr", { "connections.rate", "failures", NULL }, NULL },
	{ "http", { "requests.rate", "errors", NULL }, "request" },
};

const struct bp_headline *bp_headline_of(const char *test)
{
	for (size_t i = 0; test && i < sizeof(headlines) / sizeof(headlines[0]); i++)
		if (!strcmp(headlines[i].test, test))
			return &headlines[i];
	return NULL;
}
