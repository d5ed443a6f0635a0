#include "board/mountinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/sysfs.h"

/* Copies the next space-separated field, decoding the kernel's \ooo escapes. */
static const char *field(const char *s, char *out, size_t len)
{
	size_t o = 0;

	while (*s == ' ')
		s++;
	if (!*s || *s == '\n')
		return NULL;
	for (; *s && *s != ' ' && *s != '\n'; s++) {
		char c = *s;

		if (c == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			c = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		}
		if (o + 1 < len)
			out[o++] = c;
	}
	if (len)
		out[o] = '\0';
	return s;
}

int bp_mountinfo_parse_line(const char *line, struct bp_mount_info *m)
{
	char tok[512];
	const char *s = line;

	memset(m, 0, sizeof(*m));
	/* mount ID, parent ID, major:minor, root within the fs, mount point */
	if (!(s = field(s, tok, sizeof(tok))) || !(s = field(s, tok, sizeof(tok))) ||
	    !(s = field(s, tok, sizeof(tok))) || sscanf(tok, "%u:%u", &m->major, &m->minor) != 2 ||
	    !(s = field(s, tok, sizeof(tok))) ||
	    !(s = field(s, m->mount_point, sizeof(m->mount_point))))
		return -EINVAL;
	/* mount options, then optional fields ("shared:1") up to the lone "-" separator */
	do {
		if (!(s = field(s, tok, sizeof(tok))))
			return -EINVAL;
	} while (strcmp(tok, "-") != 0);
	if (!(s = field(s, m->fstype, sizeof(m->fstype))) ||
	    !field(s, m->source, sizeof(m->source)))
		return -EINVAL;
	return 0;
}

/* Length of mount point mp when it contains path, else 0 ("/" contains everything). */
static size_t prefix_len(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return 1;
	if (strncmp(mp, path, n) == 0 && (path[n] == '/' || path[n] == '\0'))
		return n;
	return 0;
}

int bp_mount_find(const char *root, unsigned major, unsigned minor, const char *path,
		  struct bp_mount_info *m)
{
	FILE *f = bp_sysfs_fopen(root, "/proc/self/mountinfo");
	struct bp_mount_info cur;
	size_t best = 0, cap = 0;
	char *line = NULL;
	int found = 0;

	memset(m, 0, sizeof(*m));
	if (!f)
		return -errno;
	/* overlay mounts list every lower directory: lines run to kilobytes */
	while (getline(&line, &cap, f) > 0) {
		size_t score;

		if (bp_mountinfo_parse_line(line, &cur) < 0 || cur.major != major ||
		    cur.minor != minor)
			continue;
		/* without a path any match will do; keep the first */
		score = path ? prefix_len(cur.mount_point, path) : 1;
		if ((found && !path) || (path && score <= best && found))
			continue;
		*m = cur;
		best = score;
		found = 1;
	}
	free(line);
	fclose(f);
	return found ? 0 : -ENOENT;
}
