/* `tephra import kube`, the reading half: files, directories (recursive, sorted by name) and
 * standard input; each file cut into its YAML documents at `---` lines and parsed with the
 * kernel's reader, merge keys resolved; a document is a `List` (its items) or one object, which
 * kube_object() hands to its kind's converter. */
#include "kube.h"

#include "../cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A line that starts a document: `---` alone or followed by a blank. */
static bool doc_start(const char *p, const char *end)
{
	return end - p >= 3 && !memcmp(p, "---", 3) &&
	       (end - p == 3 || p[3] == ' ' || p[3] == '\t' || p[3] == '\n' || p[3] == '\r');
}

static int list_items(kube_import *k, yu_ctx *c, const yu_node *items)
{
	yu_push(c, "items");
	int rc = yu_want_seq(c, items);
	for (uint32_t i = 0; rc == TPH_OK && i < items->len; i++) {
		yu_push_idx(c, (int32_t)i);
		const yu_node *obj = yu_at(c, items->u.items[i]);
		rc = yu_want_map(c, obj);
		int depth = c->depth;
		c->depth = 0; /* an object's errors name it and its own fields */
		if (rc == TPH_OK)
			rc = kube_object(k, c, obj);
		c->depth = depth;
		yu_pop(c);
	}
	yu_pop(c);
	return rc;
}

static int one_doc(kube_import *k, const char *file, const char *buf, size_t len, int line)
{
	yu_doc doc; /* a List's items parse in parallel; it has no line base, so only from line 0 */
	int rc = line ? yu_load(buf, len, file, line, 0, &doc, k->d)
	              : yu_load_parallel(buf, len, file, &doc, k->d);
	if (rc < 0)
		return rc;
	yu_arena scratch = {0};
	yu_ctx c;
	yu_ctx_init(&c, &doc, file, &scratch, k->d);
	c.line_base = line;
	if (doc.root != YU_NONE)
		rc = yu_resolve_merges(&c, &doc);
	const yu_node *root = doc.root == YU_NONE ? NULL : yu_at(&c, doc.root);
	if (rc == TPH_OK && root && !yu_is_null(root)) {
		rc = yu_want_map(&c, root);
		const char *kind = rc == TPH_OK ? kstr(&c, root, "kind") : NULL;
		const yu_node *items = rc == TPH_OK ? kget(&c, root, "items") : NULL;
		size_t klen = kind ? strlen(kind) : 0;
		if (rc == TPH_OK && items && klen >= 4 && !strcmp(kind + klen - 4, "List"))
			rc = list_items(k, &c, items);
		else if (rc == TPH_OK)
			rc = kube_object(k, &c, root);
	}
	yu_arena_free(&scratch);
	yu_doc_free(&doc);
	return rc;
}

static int read_buffer(kube_import *k, const char *file, const char *buf, size_t len)
{
	const char *end = buf + len, *start = buf, *p = buf;
	int line = 0, start_line = 0, rc = TPH_OK;
	while (rc == TPH_OK && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		if (p != start && doc_start(p, next)) {
			rc = one_doc(k, file, start, (size_t)(p - start), start_line);
			start = p;
			start_line = line;
		}
		p = next;
		line++;
	}
	return rc == TPH_OK ? one_doc(k, file, start, (size_t)(end - start), start_line) : rc;
}

static int read_file(kube_import *k, const char *path)
{
	bool in = !strcmp(path, "-");
	const char *name = in ? CLI_STDIN_NAME : path;
	char *buf;
	size_t len;
	int rc = yu_read_file(in ? "/dev/stdin" : path, &buf, &len, k->d);
	if (rc < 0 && in)
		tph_diag_set(k->d, rc, "%s: cannot read", name);
	if (rc < 0)
		return rc;
	if (rc == TPH_OK)
		rc = kube_file(k, name);
	if (rc < 0) {
		yu_free(buf);
		return rc;
	}
	rc = read_buffer(k, name, buf, len);
	yu_free(buf);
	return rc;
}

static bool wanted_name(const char *s)
{
	size_t n = strlen(s);
	return (n > 5 && !strcmp(s + n - 5, ".yaml")) || (n > 4 && !strcmp(s + n - 4, ".yml")) ||
	       (n > 5 && !strcmp(s + n - 5, ".json"));
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int read_path(kube_import *k, const char *path, int depth);

static int read_dir(kube_import *k, const char *path, int depth)
{
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, by_name);
	if (n < 0)
		return tph_diag_set(k->d, TPH_EIO, "%s: cannot read: %s", path, strerror(errno));
	int rc = TPH_OK;
	for (int i = 0; i < n; i++) {
		const char *e = ents[i]->d_name;
		char sub[4096];
		if (rc == TPH_OK && e[0] != '.' &&
		    (size_t)snprintf(sub, sizeof sub, "%s/%s", path, e) >= sizeof sub)
			rc = tph_diag_set(k->d, TPH_EINVAL, "%s/%s: path too long", path, e);
		struct stat st;
		if (rc == TPH_OK && e[0] != '.' && stat(sub, &st) == 0 &&
		    (S_ISDIR(st.st_mode) || wanted_name(e)))
			rc = read_path(k, sub, depth + 1);
		free(ents[i]);
	}
	free(ents);
	return rc;
}

static int read_path(kube_import *k, const char *path, int depth)
{
	struct stat st;
	if (strcmp(path, "-") && stat(path, &st) != 0)
		return tph_diag_set(k->d, errno == ENOENT ? TPH_ENOENT : TPH_EIO, "%s: %s", path,
		                    strerror(errno));
	if (strcmp(path, "-") && S_ISDIR(st.st_mode)) {
		if (depth > 64)
			return tph_diag_set(k->d, TPH_EINVAL, "%s: directories nested too deep",
			                    path);
		return read_dir(k, path, depth);
	}
	return read_file(k, path);
}

int kube_import_path(kube_import *k, const char *path)
{
	return read_path(k, path, 0);
}
