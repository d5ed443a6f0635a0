/* disk's metric catalogue (result/kind.h): every figure it may emit. */
#ifndef BP_DISK_DISK_METRICS_H
#define BP_DISK_DISK_METRICS_H

#include "result/kind.h"

extern const struct bp_kind bp_kind_disk;

#endif
