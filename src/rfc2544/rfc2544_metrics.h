/* rfc2544's metric catalogue (result/kind.h): every figure it may emit. */
#ifndef BP_RFC2544_RFC2544_METRICS_H
#define BP_RFC2544_RFC2544_METRICS_H

#include "result/kind.h"

extern const struct bp_kind bp_kind_rfc2544;

#endif
