/* KAI's podaffinity plugin (plugins/podaffinity over k8s InterPodAffinity's PreScore and
 * Score): NodePreOrder runs PreScore for the task, NodeOrder adds 10^6 (scores.K8sPlugins)
 * times the raw topology score — the preferred terms of the task and of the placed pods, with
 * their weights, summed over the node's domains; KAI never normalises it, and builds the
 * plugin with HardPodAffinityWeight 0, so existing pods' required affinity adds nothing. A
 * task whose PreScore once skipped (no placed pod scores it) scores 0 for the rest of the
 * session, as KAI remembers the skip per pod. Counting: interpod.c. */
#include "interpod_int.h"

#include "tephra/alloc.h"

#define K8S_PLUGINS 1e6

typedef struct aff_state {
	ip_index *ix;
	uint8_t *skip; /* [task] */
} aff_state;

static void pre_order(void *state, const tph_kai_session *s, uint32_t t, const uint32_t *nodes,
                      uint32_t n)
{
	aff_state *p = state;
	(void)s, (void)nodes, (void)n;
	if (ip_score_skips(p->ix, t))
		p->skip[t] = 1;
}

static int order(void *state, const tph_kai_session *s, uint32_t t, uint32_t node, double *score)
{
	const aff_state *p = state;
	(void)s;
	*score = p->skip[t] ? 0 : K8S_PLUGINS * (double)ip_score(p->ix, t, node);
	return TPH_OK;
}

static void on_event(void *state, const tph_kai_session *s, uint32_t t, int32_t node, int sign)
{
	ip_event(((aff_state *)state)->ix, s, t, node, sign);
}

static int open_aff(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	*state = NULL;
	ip_index *ix;
	if (ip_build(s, IP_PREFERRED, &ix) < 0)
		return tph_diag_set(d, TPH_ENOMEM, "podaffinity: out of memory");
	if (!ix) /* no preferred term anywhere: every score is 0 */
		return TPH_OK;
	aff_state *p = tph_calloc(1, sizeof *p);
	if (p)
		p->skip = tph_calloc((size_t)ix->n_tasks + 1, 1);
	if (!p || !p->skip) {
		ip_free(ix);
		tph_free(p);
		return tph_diag_set(d, TPH_ENOMEM, "podaffinity: out of memory");
	}
	p->ix = ix;
	*state = p;
	int rc = tph_kai_add_node_pre_order(s, pre_order, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_node_order(s, order, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_event_handler(s, on_event, p);
	return rc < 0 ? tph_diag_set(d, rc, "podaffinity: cannot register") : TPH_OK;
}

static void close_aff(tph_kai_session *s, void *state)
{
	aff_state *p = state;
	(void)s;
	if (!p)
		return;
	ip_free(p->ix);
	tph_free(p->skip);
	tph_free(p);
}

const tph_kai_plugin tph_kai_plugin_podaffinity = {TPH_KAI_PLUGIN_ABI, "podaffinity", open_aff,
                                                   close_aff};
