/* together's metric catalogue (result/kind.h): its tests' figures under their labels. */
#ifndef BP_SUITE_TOGETHER_METRICS_H
#define BP_SUITE_TOGETHER_METRICS_H

#include "result/kind.h"

extern const struct bp_kind bp_kind_together;

#endif
