/* `tephra import kube` and `tephra export kube`: kubectl's objects in and out of the scenario
 * format (README.md beside this file). Both sides are YAML documents read with the kernel's
 * reader (load/yaml_util.h) and written one flow-style line per object. */
#ifndef TPH_KUBE_H
#define TPH_KUBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "load/yaml_util.h"
#include "tephra/scenario.h"

/* ---- writing one object per line ---------------------------------------------------------- */

/* `  - {key: value, ...}` (import: a scenario item) or `- {...}` (export: a List item). */
typedef struct kl {
	FILE *f;
	bool more;
} kl;

/* A JSON string (also a YAML double-quoted scalar): json_str of cli.h, written in runs. */
void kq(FILE *f, const char *s);
/* A mapping key: plain when that is safe, else as kq. */
void kk(FILE *f, const char *key);
void kl_open(kl *l, FILE *f, const char *indent);
void kl_close(kl *l);
/* `key: ` after a comma when needed; the caller writes the value. */
void kl_key(kl *l, const char *key);
void kl_str(kl *l, const char *key, const char *v); /* a JSON-quoted string */
void kl_raw(kl *l, const char *key, const char *v); /* as it is (numbers, booleans, {...}) */
void kl_i64(kl *l, const char *key, int64_t v);
/* Writers of one value under `key`, from a node of the input (errors name the field path the
 * caller pushed); `aux` is each one's own. */
typedef int (*kl_fn)(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux);
/* A subtree as flow YAML: mappings, sequences, plain numbers, booleans and null kept plain,
 * every other scalar JSON-quoted. aux: keys (NULL-terminated const char *[]; may be NULL) left
 * out when their value is empty (null, {} or []); any other value there is an error, since the
 * scenario format has no place for it. */
int kl_tree(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *drop);
/* A mapping of strings (labels, annotations, nodeSelector); aux: keys left out (as for
 * kl_tree). Empty after skipping: nothing is written. */
int kl_strmap(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *skip);
/* A mapping of resource quantities, each checked; written as given. */
int kl_res(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux);
/* A JSON-quoted string from a scalar. */
int kl_scalar(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux);
/* A plain number or boolean, as written; aux: what it should be ("an integer"), for errors. */
int kl_plain(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux);
/* fn on the value at dotted path `kpath` of `obj` (nothing when absent or null), with that
 * path on the error path. */
int kl_at(kl *l, yu_ctx *c, const yu_node *obj, const char *kpath, const char *key, kl_fn fn,
          const void *aux);

/* One field of an object: the value at dotted path `kpath`, written under `key` by `fn`. */
typedef struct kfield {
	const char *kpath, *key;
	kl_fn fn;
	const void *aux;
} kfield;

typedef struct kfields {
	const kfield *f;
	size_t n;
} kfields;

#define KFIELDS(tab)                            \
	{                                       \
		tab, sizeof tab / sizeof tab[0] \
	}

/* Every field of `t` that `obj` has, in the table's order. */
int kl_fields(kl *l, yu_ctx *c, const yu_node *obj, const kfields *t);
/* kl_fn: a sequence of mappings, each written `{...}` with the fields aux (a kfields) lists. */
int kl_maps(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *fields);

/* ---- reading ----------------------------------------------------------------------------- */

/* The value at a dotted path ("spec.nodeName") under a mapping; NULL when absent or null. */
const yu_node *kget(const yu_ctx *c, const yu_node *map, const char *path);
/* Its text when it is a scalar, else NULL (then `what` an error names it, unless NULL). */
const char *kstr(const yu_ctx *c, const yu_node *map, const char *path);
/* Push every key of a dotted path onto the error path; returns how many to pop. */
int kpush(yu_ctx *c, const char *path, char *store, size_t cap);
void kpop(yu_ctx *c, int n);

/* Per-pod sums of container quantities, by resource name (at most KR_MAX resources). */
#define KR_MAX 64
typedef struct kres {
	uint32_t n;
	const char *name[KR_MAX];
	int64_t v[KR_MAX];
} kres;

/* Add each quantity of mapping `v` (checked) to `r`; `max`: take the larger instead. */
int kres_add(kres *r, yu_ctx *c, const yu_node *v, bool max);
void kres_write(kl *l, const char *key, const kres *r);

/* ---- import ------------------------------------------------------------------------------ */

enum {
	KS_PCLASSES,
	KS_QUEUES,
	KS_NODES,
	KS_HYPERNODES,
	KS_QUOTAS,
	KS_PDBS,
	KS_PODGROUPS,
	KS_PODS,
	KS_COUNT
};

#define KUBE_SKIP_KINDS 32

/* Where a scenario line came from: the object's file (an index into kube_import.files), line
 * and column, so that an error the scenario loader finds in it names the kubectl dump. */
typedef struct korigin {
	uint32_t file, line, col;
} korigin;

typedef struct korigins {
	korigin *v;
	uint32_t n, cap;
} korigins;

#define KS_HEAD KS_COUNT /* orig[KS_HEAD]: the top-level lines the ConfigMap gave */

typedef struct kube_import {
	const char *scheduler_name; /* pods naming it are scheduled; others only hold resources */
	FILE *sec[KS_COUNT];        /* each section's items, in memory, one line each */
	char *buf[KS_COUNT];
	size_t len[KS_COUNT];
	FILE *head; /* top-level keys: conf and what the ConfigMap's tephra.io/ annotations carry */
	char *head_buf;
	size_t head_len;
	korigins orig[KS_COUNT + 1]; /* per line of each section, and of head */
	char **files;                /* every file read, as named in messages */
	uint32_t n_files, cap_files;
	korigin *line_orig; /* per line of the written scenario (file UINT32_MAX: none) */
	uint32_t n_lines;
	bool oom;
	yu_map node_names; /* every Node read (keys in names) */
	yu_arena names;
	/* a pod's `phase` and `nodeName` in the pods section, kept apart in case its node is not
	 * in the dump (kube_import_write) */
	struct kplaced {
		size_t from, to;
		const char *node, *phase; /* in names; phase NULL: none written */
		bool ours;
	} * placed;
	uint32_t n_placed, cap_placed;
	char conf_from[256]; /* "ns/name" of the ConfigMap that gave the conf; "" none */
	struct {
		char kind[64];
		uint32_t n;
	} skipped[KUBE_SKIP_KINDS];
	uint32_t n_skipped;
	uint32_t foreign_unplaced; /* other schedulers' pods on no node: not in Volcano's cache */
	tph_diag *d;
} kube_import;

int kube_import_init(kube_import *k, const char *scheduler_name, tph_diag *d);
/* A file, a directory (recursively, sorted, *.yaml, *.yml, *.json) or "-" (standard input). */
int kube_import_path(kube_import *k, const char *path);
/* The scenario, named `name` unless the ConfigMap names it; warnings for skipped kinds. */
int kube_import_write(kube_import *k, const char *name, FILE *out);
void kube_import_free(kube_import *k);

/* The file whose objects follow (kube_read.c). */
int kube_file(kube_import *k, const char *name);
/* Remember a Node's name; write a pod's phase and nodeName as kube_import_write may change
 * them (kube_import.c). */
int kube_node_name(kube_import *k, const char *name);
int kube_placement(kube_import *k, kl *l, yu_ctx *c, const yu_node *obj, bool ours);
/* Open the scenario line of `obj` in section `sec` ("  - {"), remembering where it came from. */
kl kube_item(kube_import *k, int sec, const yu_ctx *c, const yu_node *obj);
/* Load the scenario kube_import_write wrote into `buf`; an error on one of its lines is told
 * at the object that line came from: `FILE:LINE:COL: pod ns/p: field ...: ...`. */
int kube_load(kube_import *k, const char *buf, size_t len, tph_scenario **out);

/* One object (a mapping with kind); called by the reader. */
int kube_object(kube_import *k, yu_ctx *c, const yu_node *obj);
int kube_node(kube_import *k, yu_ctx *c, const yu_node *obj);
int kube_queue(kube_import *k, yu_ctx *c, const yu_node *obj);
int kube_pclass(kube_import *k, yu_ctx *c, const yu_node *obj);
int kube_hypernode(kube_import *k, yu_ctx *c, const yu_node *obj);
int kube_quota(kube_import *k, yu_ctx *c, const yu_node *obj);
int kube_pdb(kube_import *k, yu_ctx *c, const yu_node *obj);
int kube_configmap(kube_import *k, yu_ctx *c, const yu_node *obj);
int kube_podgroup(kube_import *k, yu_ctx *c, const yu_node *obj);
int kube_pod(kube_import *k, yu_ctx *c, const yu_node *obj);
/* An object whose scenario item is its name (and namespace) and the fields of `t`. */
int kube_plain(kube_import *k, yu_ctx *c, const yu_node *obj, const char *kind, int sec,
               const kfields *t);
/* metadata.name (required) and namespace ("default" when absent, NULL for cluster objects),
 * and the object named in later errors. */
int kube_meta(yu_ctx *c, const yu_node *obj, const char *kind, bool namespaced, const char **name,
              const char **ns);

/* Annotations of the scheduler ConfigMap that carry scenario keys without a Kubernetes home
 * (export writes them, import reads them back). */
#define KUBE_ANN_PREFIX "tephra.io/"
/* Kubernetes wants an image for every container; export names this one for a pod without
 * `images` (or an init container without `image`) and marks the pod with the annotation, so
 * that import leaves the placeholder out again. */
#define KUBE_NO_IMAGE     "registry.k8s.io/pause:3.9"
#define KUBE_ANN_NO_IMAGE KUBE_ANN_PREFIX "no-image"

/* The scenario of kubectl dumps `in`, imported in memory and loaded, for `tephra run --kube`. */
int kube_scenario(const char *const *in, int n, const char *scheduler, tph_scenario **out,
                  tph_diag *d);

/* ---- export ------------------------------------------------------------------------------ */

/* The scenario at `path` as a kind: List, to `out` (kube_export.c). */
int kube_export(const char *path, FILE *out, tph_diag *d);

/* ---- the commands ------------------------------------------------------------------------ */

int cmd_import_kube(int argc, char **argv); /* argv[0] is "kube" */
int cmd_export(int argc, char **argv);      /* argv[0] is "export" */

#endif
