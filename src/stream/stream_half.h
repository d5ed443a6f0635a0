/* The stream tests' half on boardperf serve (server/half.h): tcp's and udp's. */
#ifndef BP_STREAM_STREAM_HALF_H
#define BP_STREAM_STREAM_HALF_H

#include "server/half.h"

extern const struct srv_half srv_half_stream;

#endif
