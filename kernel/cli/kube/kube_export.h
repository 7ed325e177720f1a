/* `tephra export kube`, shared by its files: the walk (kube_export.c) and the writers of each
 * scenario section as Kubernetes objects (kube_export_objects.c, kube_export_pods.c). */
#ifndef TPH_KUBE_EXPORT_H
#define TPH_KUBE_EXPORT_H

#include "kube.h"

typedef struct kx {
	const char *path; /* the scenario */
	FILE *out;
	tph_diag *d;
	yu_ctx c; /* over the scenario's document */
	yu_arena arena;
	yu_map hypernodes;     /* names of the scenario's hypernodes: a member's type */
	uint32_t bad_names;    /* names the API server refuses (one warning at the end) */
	char bad_example[160]; /* the first of them */
} kx;

/* Open `key: {` inside `l`; the returned line writes the members; kx_end closes it. */
kl kx_begin(kl *l, const char *key);
void kx_end(kl *inner);
/* `metadata: {name, namespace}` of a scenario object (namespace "default" when absent, none
 * unless `namespaced`), left open for more; names Kubernetes refuses are counted. */
kl kx_meta(kl *l, kx *x, const yu_node *item, const char *kind, bool namespaced);
/* `annotations: {...}` of a scenario object, and `extra` keys (those whose value is not NULL)
 * written over its own. Nothing when there are none. */
typedef struct kx_ann {
	const char *key;
	const char *value;
} kx_ann;
void kx_annotations(kl *m, kx *x, const yu_node *item, const kx_ann *extra, int n);
/* kl_at with the scenario key as the path and another key written. */
int kx_copy(kl *l, kx *x, const yu_node *item, const char *skey, const char *key, kl_fn fn);

/* A scenario key and the Kubernetes key it is written under. */
typedef struct kxf {
	const char *skey, *kkey;
} kxf;
/* `key: {...}` with each pair of `f` the item has (key NULL: into `l` itself). */
int kx_section(kl *l, kx *x, const yu_node *it, const char *key, const kxf *f, size_t n);
#define KX_SECTION(l, x, it, key, tab) kx_section(l, x, it, key, tab, sizeof tab / sizeof tab[0])

int kx_pclass(kx *x, const yu_node *item);
int kx_queue(kx *x, const yu_node *item);
int kx_node(kx *x, const yu_node *item);
int kx_hypernode(kx *x, const yu_node *item);
int kx_quota(kx *x, const yu_node *item);
int kx_pdb(kx *x, const yu_node *item);
int kx_podgroup(kx *x, const yu_node *item);
int kx_pod(kx *x, const yu_node *item);

#endif
