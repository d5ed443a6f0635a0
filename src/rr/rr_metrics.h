/* rr's and crr's metric catalogues (result/kind.h): every figure either may emit. */
#ifndef BP_RR_RR_METRICS_H
#define BP_RR_RR_METRICS_H

#include "result/kind.h"

extern const struct bp_kind bp_kind_rr;
extern const struct bp_kind bp_kind_crr;

#endif
