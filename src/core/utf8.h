/*
 * Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF),
 * as JSON requires it: text that goes into a result (a label, a name) is checked where it
 * comes in, since jansson refuses a string that is not, and the value would be lost.
 */
#ifndef BP_CORE_UTF8_H
#define BP_CORE_UTF8_H

#include <stddef.h>

/* Length of the well-formed sequence at s (1 to 4), or 0 (also at the terminating NUL's
 * place inside a sequence). */
size_t bp_utf8_seq_len(const unsigned char *s);

/* The byte offset of the first byte of s that is not well-formed UTF-8, or -1 for none. */
long bp_utf8_invalid_at(const char *s);

#endif
