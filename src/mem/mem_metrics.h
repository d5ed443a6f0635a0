/* mem's metric catalogue (result/kind.h): every figure it may emit. */
#ifndef BP_MEM_MEM_METRICS_H
#define BP_MEM_MEM_METRICS_H

#include "result/kind.h"

extern const struct bp_kind bp_kind_mem;

#endif
