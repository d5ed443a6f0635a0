/*
 * core/text_escape.h: what a peer's text becomes at a log line, a terminal, `show` and the
 * report. Controls and invalid UTF-8 are shown as \xNN, well-formed text passes, a cut
 * never splits an escape or a character.
 */
#include <stdio.h>
#include <string.h>

#include "core/text_escape.h"
#include "tap.h"

static const char *esc(const char *in, size_t len, unsigned flags)
{
	static char out[256];

	bp_text_escape(out, sizeof(out), in, len, flags);
	return out;
}

#define ESC(s) esc(s, sizeof(s) - 1, 0)

static void check_escapes(void)
{
	/* plain text, UTF-8 and backslashes pass */
	CHECK_STR(ESC("tcp upload, 1 stream"), "tcp upload, 1 stream");
	CHECK_STR(ESC("gr\xc3\xbc\xc3\x9f" "e \xe2\x80\xa6 \xf0\x9f\x98\x80 a\\b"),
		  "gr\xc3\xbc\xc3\x9f" "e \xe2\x80\xa6 \xf0\x9f\x98\x80 a\\b");
	/* a forged line, a terminal's escape sequence, CR, TAB, DEL, a NUL inside */
	CHECK_STR(ESC("x\nFORGED LINE"), "x\\x0AFORGED LINE");
	CHECK_STR(ESC("\x1b]0;title\x07\x1b[2J\r\t\x7f"),
		  "\\x1B]0;title\\x07\\x1B[2J\\x0D\\x09\\x7F");
	CHECK_STR(ESC("a\0b"), "a\\x00b");
	/* C1 controls (U+009B is CSI to some terminals), separators, bidi overrides */
	CHECK_STR(ESC("\xc2\x9b" "31m \xc2\x85"), "\\xC2\\x9B31m \\xC2\\x85");
	CHECK_STR(ESC("\xe2\x80\xa8\xe2\x80\xae\xe2\x81\xa6"),
		  "\\xE2\\x80\\xA8\\xE2\\x80\\xAE\\xE2\\x81\\xA6");
	CHECK_STR(ESC("\xc2\xa0\xe2\x80\xa7\xe2\x80\xaf"), "\xc2\xa0\xe2\x80\xa7\xe2\x80\xaf");
	/* invalid UTF-8: stray continuation, overlong, surrogate, past U+10FFFF, cut short */
	CHECK_STR(ESC("\x80"), "\\x80");
	CHECK_STR(ESC("\xc0\xaf"), "\\xC0\\xAF");
	CHECK_STR(ESC("\xe0\x80\xaf"), "\\xE0\\x80\\xAF");
	CHECK_STR(ESC("\xed\xa0\x80"), "\\xED\\xA0\\x80");
	CHECK_STR(ESC("\xf4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");
	CHECK_STR(ESC("\xf5"), "\\xF5");
	CHECK_STR(ESC("ok\xe2\x80"), "ok\\xE2\\x80");
	CHECK_STR(ESC("\xe2\x80x"), "\\xE2\\x80x");
	/* escaping twice changes nothing more: a line escaped at its source and at the log */
	CHECK_STR(esc("x\\x0AFORGED", 11, 0), "x\\x0AFORGED");
	/* a multi-line text keeps its lines and tabs, not its CR */
	CHECK_STR(esc("a\tb\r\nc\x1b", 7, BP_ESC_KEEP_LINES), "a\tb\\x0D\nc\\x1B");
}

static void check_cuts(void)
{
	char out[8];

	/* room for 7: an escape that does not fit whole is left out */
	CHECK_INT(bp_text_escape(out, sizeof(out), "abcd\n", 5, 0), 4);
	CHECK_STR(out, "abcd");
	CHECK_INT(bp_text_escape(out, sizeof(out), "abc\ne", 5, 0), 7);
	CHECK_STR(out, "abc\\x0A");
	/* nor is a character split */
	CHECK_INT(bp_text_escape(out, sizeof(out), "abcdef\xc3\xbc", 8, 0), 6);
	CHECK_STR(out, "abcdef");
	CHECK_INT(bp_text_escape(out, 1, "abc", 3, 0), 0);
	CHECK_STR(out, "");
	CHECK_STR(bp_esc(out, sizeof(out), NULL), "");
}

static void check_html(void)
{
	char buf[256] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	bp_html_escape(f, "<b a='1'>\"&\x1b[31m\n\xff");
	fclose(f);
	CHECK_STR(buf, "&lt;b a=&#39;1&#39;&gt;&quot;&amp;\\x1B[31m\\x0A\\xFF");
}

int main(void)
{
	check_escapes();
	check_cuts();
	check_html();
	return tap_done();
}
