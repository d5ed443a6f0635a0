#include "core/buildinfo.h"

#include <gnu/libc-version.h>
#include <http_parser.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <openssl/crypto.h>
#include <sqlite3.h>

#include "bp_config.h"

/* meson.build asks for these (-D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64) and checks them at
 * configure time; this makes a file built any other way fail too. */
_Static_assert(sizeof(time_t) == 8, "time_t must be 64-bit (build with -D_TIME_BITS=64)");
_Static_assert(sizeof(off_t) == 8, "off_t must be 64-bit (build with -D_FILE_OFFSET_BITS=64)");

/* Two ARM ports share Meson's cpu_family 'arm': the compiler's own macros tell them apart. */
#if defined(__x86_64__)
#define BP_ABI "amd64"
#define BP_ABI_DETAIL "x86-64"
#elif defined(__aarch64__)
#define BP_ABI "arm64"
#define BP_ABI_DETAIL "ARMv8-A, AArch64"
#elif defined(__arm__)
#define BP_STR2(x) #x
#define BP_STR(x) BP_STR2(x)
#if defined(__ARM_PCS_VFP)
#define BP_ABI "armhf"
#define BP_ABI_DETAIL "ARMv" BP_STR(__ARM_ARCH) ", hard-float EABI"
#else
#define BP_ABI "armel"
#if defined(__ARM_FP)
#define BP_ABI_DETAIL "ARMv" BP_STR(__ARM_ARCH) ", soft-float EABI, VFP"
#else
#define BP_ABI_DETAIL "ARMv" BP_STR(__ARM_ARCH) ", soft-float EABI"
#endif
#endif
#elif defined(__i386__)
#define BP_ABI "i386"
#define BP_ABI_DETAIL "x86, 32-bit"
#else
#define BP_ABI BP_HOST_CPU
#define BP_ABI_DETAIL BP_HOST_CPU
#endif

const char *bp_version(void)
{
	return BP_VERSION;
}

const char *bp_build_abi(void)
{
	return BP_ABI;
}

const char *bp_build_caveat(void)
{
	if (strcmp(BP_SANITIZE, "none"))
		return "this boardperf was built with sanitizers (" BP_SANITIZE "): "
		       "its speed figures are not representative";
	if (!strcmp(BP_BUILDTYPE, "debug") || !strcmp(BP_BUILDTYPE, "plain"))
		return "this boardperf is an unoptimised " BP_BUILDTYPE " build: "
		       "its speed figures are not representative";
	return NULL;
}

static void http_parser_version_str(char *buf, size_t len)
{
	unsigned long v = http_parser_version();

	snprintf(buf, len, "%lu.%lu.%lu", (v >> 16) & 255, (v >> 8) & 255, v & 255);
}

void bp_buildinfo_print(FILE *f)
{
	char hp[32];

	http_parser_version_str(hp, sizeof(hp));
	fprintf(f, "boardperf %s %s (%s), %s\n", BP_VERSION, BP_ABI, BP_ABI_DETAIL,
		BP_STATIC ? "statically linked" : "dynamically linked");
	fprintf(f, "build: %s, %s, %s%s%s", BP_BUILDTYPE, BP_COMPILER, BP_CFLAGS,
		BP_LDFLAGS[0] ? ", link " : "", BP_LDFLAGS);
	if (strcmp(BP_SANITIZE, "none"))
		fprintf(f, ", sanitizers %s", BP_SANITIZE);
	fprintf(f, "\nlibraries: %s, jansson %s, liburing %s, http-parser %s, sqlite %s, glibc %s\n",
		OpenSSL_version(OPENSSL_VERSION), jansson_version_str(), BP_LIBURING_VERSION, hp,
		sqlite3_libversion(), gnu_get_libc_version());
}

json_t *bp_buildinfo_json(void)
{
	char libc[64], hp[32];

	snprintf(libc, sizeof(libc), "glibc %s", gnu_get_libc_version());
	http_parser_version_str(hp, sizeof(hp));
	/* Library versions come from the libraries at run time where they can say (liburing
	 * cannot): a dynamically linked binary may meet other versions than it was built with. */
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:{s:s, s:s, s:s, s:s, s:s, "
			 "s:s}}",
			 "version", BP_VERSION,
			 "compiler", BP_COMPILER,
			 "buildtype", BP_BUILDTYPE,
			 "cflags", BP_CFLAGS,
			 "ldflags", BP_LDFLAGS,
			 "sanitize", BP_SANITIZE,
			 "arch", BP_HOST_CPU,
			 "abi", BP_ABI,
			 "static", BP_STATIC,
			 "libraries",
			 "openssl", OpenSSL_version(OPENSSL_VERSION),
			 "jansson", jansson_version_str(),
			 "liburing", BP_LIBURING_VERSION,
			 "http_parser", hp,
			 "sqlite", sqlite3_libversion(),
			 "libc", libc);
}
