#include "io/frame.h"

#include <errno.h>
#include <stdio.h>

const unsigned bp_frame_rfc2544_sizes[7] = { 64, 128, 256, 512, 1024, 1280, 1518 };

size_t bp_frame_overhead(unsigned ip_version)
{
	size_t ip = ip_version == 6 ? BP_IPV6_HDR_LEN : BP_IPV4_HDR_LEN;

	return BP_ETH_HDR_LEN + BP_ETH_FCS_LEN + ip + BP_UDP_HDR_LEN;
}

int bp_frame_payload(unsigned frame_len, unsigned ip_version, size_t min_payload,
		     unsigned flags, size_t *payload, char *err, size_t errlen)
{
	size_t ovh = bp_frame_overhead(ip_version);
	size_t max = flags & BP_FRAME_ALLOW_JUMBO ? BP_FRAME_JUMBO_MAX : BP_FRAME_MAX;
	/* The smallest frame carrying min_payload, never below Ethernet's minimum. */
	size_t smallest = ovh + min_payload < BP_FRAME_MIN ? BP_FRAME_MIN : ovh + min_payload;

	if (ip_version != 4 && ip_version != 6) {
		snprintf(err, errlen, "frame %u B: IP version %u is neither 4 nor 6", frame_len,
			 ip_version);
		return -EINVAL;
	}
	if (frame_len < BP_FRAME_MIN) {
		snprintf(err, errlen, "frame %u B is below Ethernet's minimum of %d B", frame_len,
			 BP_FRAME_MIN);
		return -EINVAL;
	}
	if (frame_len > max) {
		snprintf(err, errlen, "frame %u B is above the maximum of %zu B%s", frame_len, max,
			 max == BP_FRAME_MAX ? " (jumbo frames not enabled)" : "");
		return -EINVAL;
	}
	if (frame_len < smallest) {
		/* Signed, so that a 64-byte IPv6 frame shows its -2 bytes honestly. */
		snprintf(err, errlen,
			 "frame %u B leaves %ld B of IPv%u/UDP payload, the test needs %zu B: "
			 "smallest usable frame %zu B", frame_len, (long)frame_len - (long)ovh,
			 ip_version, min_payload, smallest);
		return -EINVAL;
	}
	*payload = frame_len - ovh;
	return 0;
}

size_t bp_frame_from_payload(size_t payload, unsigned ip_version)
{
	size_t f = payload + bp_frame_overhead(ip_version);

	return f < BP_FRAME_MIN ? BP_FRAME_MIN : f;
}

size_t bp_frame_wire_bytes(unsigned frame_len)
{
	return (size_t)frame_len + BP_ETH_WIRE_EXTRA;
}

double bp_frame_max_fps(double link_bps, unsigned frame_len)
{
	return link_bps / ((double)bp_frame_wire_bytes(frame_len) * 8.0);
}

double bp_frame_line_bps(double fps, unsigned frame_len)
{
	return fps * (double)bp_frame_wire_bytes(frame_len) * 8.0;
}

double bp_frame_bps(double fps, unsigned frame_len)
{
	return fps * (double)frame_len * 8.0;
}

size_t bp_frame_tbf_bytes(unsigned frame_len)
{
	return frame_len > BP_ETH_FCS_LEN ? frame_len - BP_ETH_FCS_LEN : 0;
}

double bp_frame_tbf_fps(double tbf_bps, unsigned frame_len)
{
	size_t b = bp_frame_tbf_bytes(frame_len);

	return b ? tbf_bps / ((double)b * 8.0) : 0.0;
}
