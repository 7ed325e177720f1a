/* KAI's scenario-generator plugins (plugins/nodelocalgreedy, plugins/multinodegang): each only
 * registers its generator with the session; the generators themselves are the job solver's
 * (kernel/actions/kai/solver_gen.c), since they walk the solver's victims queue. */
#include "kai_plugins.h"

static int open_nlg(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args, (void)state, (void)d;
	return tph_kai_add_scenario_generator(s, TPH_KAI_GEN_NODE_LOCAL_GREEDY);
}

static int open_mng(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	(void)args, (void)state, (void)d;
	return tph_kai_add_scenario_generator(s, TPH_KAI_GEN_MULTI_NODE_GANG);
}

const tph_kai_plugin tph_kai_plugin_sg_nodelocalgreedy = {TPH_KAI_PLUGIN_ABI, "sg-nodelocalgreedy",
                                                          open_nlg, NULL};
const tph_kai_plugin tph_kai_plugin_sg_multinodegang = {TPH_KAI_PLUGIN_ABI, "sg-multinodegang",
                                                        open_mng, NULL};
