/* http's metric catalogue (result/kind.h): every figure it may emit. */
#ifndef BP_HTTP_HTTP_METRICS_H
#define BP_HTTP_HTTP_METRICS_H

#include "result/kind.h"

extern const struct bp_kind bp_kind_http;

#endif
