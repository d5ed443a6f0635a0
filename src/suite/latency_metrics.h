/* latency's metric catalogue (result/kind.h): every figure it may emit. */
#ifndef BP_SUITE_LATENCY_METRICS_H
#define BP_SUITE_LATENCY_METRICS_H

#include "result/kind.h"

extern const struct bp_kind bp_kind_latency;

#endif
