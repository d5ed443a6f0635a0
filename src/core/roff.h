/*
 * Text into roff, for the man page boardperf writes of itself (cli/help.h: boardperf --man).
 */
#ifndef BP_CORE_ROFF_H
#define BP_CORE_ROFF_H

#include <stdio.h>

/*
 * s as roff text that renders as s: '\' as \e, '-' as \- (a minus: options stay
 * copy-and-pasteable), '"' as \(dq (so s may also stand in a quoted macro argument), '\'' and
 * '`' as \(aq and \(ga (straight quotes, not typographic ones), a '.' at the start of a line
 * behind \& (not a request), a tab or other control character as a space, and every other
 * byte beyond ASCII as \[uXXXX] when it is valid UTF-8 (what groff and mandoc read in any
 * locale), else '?'. A newline stays one. Nothing else: fonts are the caller's.
 */
void bp_roff_text(FILE *out, const char *s);

#endif
