/*
 * Replays fuzz inputs without libFuzzer: every file named on the command line, and every
 * regular file inside a directory named there, goes once through LLVMFuzzerTestOneInput.
 * Built with gcc (and ASan/UBSan in CI), this turns a corpus into an ordinary test, so
 * the inputs that once crashed keep being checked on every build.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long size;
	int rc = -1;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	/* malloc(0) may return NULL; one spare byte keeps an empty input distinct from OOM. */
	buf = malloc((size_t)size + 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size)
		goto out;
	LLVMFuzzerTestOneInput(buf, (size_t)size);
	printf("ran %s (%ld bytes)\n", path, size);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "%s: cannot read\n", path);
	free(buf);
	fclose(f);
	return rc;
}

/* Returns the number of inputs run, or -1 when something could not be read. */
static int run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	char path[4096];
	int n = 0;

	if (!d) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (run_file(path)) {
			n = -1;
			break;
		}
		n++;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	struct stat st;
	int total = 0, n;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : (run_file(argv[i]) ? -1 : 1);
		if (n < 0)
			return 1;
		total += n;
	}
	printf("%d inputs, no crash\n", total);
	/* An empty corpus is a broken test setup, not a pass. */
	return total > 0 ? 0 : 1;
}
