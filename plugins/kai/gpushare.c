/* KAI's GPU-sharing plugins (plugins/gpupack, gpuspread, gpusharingorder): gpupack and gpuspread
 * score a shared pod's candidate devices (GpuOrder) by the used, resp. free, portion of a shared
 * device (a free whole GPU: 0, resp. 1); gpusharingorder scores a node 10^4 when one of its
 * shared devices fits the pod, so shared pods fill used devices before opening new ones. */
#include "kai_plugins.h"

static int pack(void *state, const tph_kai_session *s, uint32_t t, uint32_t node, int32_t dev,
                double *score)
{
	(void)state, (void)t;
	*score = 0;
	if (dev == TPH_KAI_WHOLE_GPU)
		return 0;
	return tph_kai_gpu_used_portion(s, node, (uint32_t)dev, score) < 0 ? -1 : 0;
}

static int spread(void *state, const tph_kai_session *s, uint32_t t, uint32_t node, int32_t dev,
                  double *score)
{
	double used = 0;
	(void)state, (void)t;
	*score = 1;
	if (dev == TPH_KAI_WHOLE_GPU)
		return 0;
	if (tph_kai_gpu_used_portion(s, node, (uint32_t)dev, &used) < 0)
		return -1;
	*score = 1 - used;
	return 0;
}

static int sharing(void *state, const tph_kai_session *s, uint32_t t, uint32_t node, double *score)
{
	(void)state;
	*score = tph_kai_gpu_fits_shared(s, t, node) ? 1e4 : 0;
	return 0;
}

static int open_gpu_order(tph_kai_session *s, tph_kai_gpu_order_fn fn, void **state, tph_diag *d,
                          const char *name)
{
	*state = NULL;
	int rc = tph_kai_add_gpu_order(s, fn, NULL);
	return rc < 0 ? tph_diag_set(d, rc, "%s: cannot register", name) : TPH_OK;
}

static int open_pack(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	return open_gpu_order(s, pack, state, d, "gpupack");
}

static int open_spread(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	return open_gpu_order(s, spread, state, d, "gpuspread");
}

static int open_sharing(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args;
	*state = NULL;
	int rc = tph_kai_add_local_node_order(s, sharing, NULL, NULL);
	return rc < 0 ? tph_diag_set(d, rc, "gpusharingorder: cannot register") : TPH_OK;
}

const tph_kai_plugin tph_kai_plugin_gpupack = {TPH_KAI_PLUGIN_ABI, "gpupack", open_pack, NULL};
const tph_kai_plugin tph_kai_plugin_gpuspread = {TPH_KAI_PLUGIN_ABI, "gpuspread", open_spread,
                                                 NULL};
const tph_kai_plugin tph_kai_plugin_gpusharingorder = {TPH_KAI_PLUGIN_ABI, "gpusharingorder",
                                                       open_sharing, NULL};
