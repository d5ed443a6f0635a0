/* tcp's and udp's metric catalogues (result/kind.h): every figure either may emit. */
#ifndef BP_STREAM_STREAM_METRICS_H
#define BP_STREAM_STREAM_METRICS_H

#include "result/kind.h"

extern const struct bp_kind bp_kind_tcp;
extern const struct bp_kind bp_kind_udp;

#endif
