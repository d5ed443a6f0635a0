/*
 * Text a peer sent (a test's parameters, a server's error, a username, an HTTP request),
 * made safe for a sink that shows it as text: a log line, a terminal, `boardperf show`, an
 * HTML report. Such text could otherwise forge a log line (a newline), rewrite a terminal
 * (ESC sequences, a carriage return) or break a page (invalid UTF-8). One function does it
 * for every sink, so that every sink shows the same bytes the same way.
 *
 * What is shown as \xNN (upper-case hex, one per byte): the C0 controls (0x00-0x1f, so ESC,
 * CR, LF and TAB too), DEL, the C1 controls (U+0080-U+009F, which some terminals obey as
 * ESC sequences), the Unicode line and paragraph separators and bidirectional overrides
 * (U+2028, U+2029, U+202A-U+202E, U+2066-U+2069: a line break or reordered text to a
 * viewer), and every byte that is not part of well-formed UTF-8 (a stray continuation, an
 * overlong form, a surrogate, beyond U+10FFFF, a sequence cut short). Anything else,
 * backslashes included, passes as is.
 */
#ifndef BP_CORE_TEXT_ESCAPE_H
#define BP_CORE_TEXT_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Keep LF and TAB (a multi-line text's own layout, e.g. a saved text form); CR is escaped. */
#define BP_ESC_KEEP_LINES 1u

/*
 * len bytes of in (NUL bytes among them are escaped too) into out, NUL-terminated, cut
 * (never inside an escape or a UTF-8 character) when cap is too small: 4 * len + 1 always
 * fits. The length written, without the NUL.
 */
size_t bp_text_escape(char *out, size_t cap, const char *in, size_t len, unsigned flags);

/* The NUL-terminated s escaped into out (no flags); out, for use as a printf argument. */
const char *bp_esc(char *out, size_t cap, const char *s);

/*
 * s as HTML or SVG text or an attribute value: escaped as above, then &, <, >, " and ' as
 * entities. The one HTML escaper (the report, its charts, compare's HTML).
 */
void bp_html_escape(FILE *out, const char *s);

#endif
