/* The gangpreempt action (Volcano's actions/gangpreempt): a starving job evicts lower-priority
 * jobs of its own queue, whole or down to their gang minimum, inside a hypernode domain where
 * all of its pending subjobs then fit; see gang_evict.h. */
#include "gang_evict.h"

static int gangpreempt_execute(tph_session *s, const tph_args *args)
{
	return gev_execute(s, args, GEV_PREEMPT);
}

const tph_action tph_action_gangpreempt = {
    TPH_PLUGIN_ABI, "gangpreempt", gev_arg_spec, NULL, gangpreempt_execute, NULL,
};
