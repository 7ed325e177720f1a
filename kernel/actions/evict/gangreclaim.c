/* The gangreclaim action (Volcano's actions/gangreclaim): a starving job of a queue that may
 * reclaim takes back running work of other, reclaimable queues, whole jobs or down to their
 * gang minimum, inside a hypernode domain where all of its pending subjobs then fit; see
 * gang_evict.h. */
#include "gang_evict.h"

static int gangreclaim_execute(tph_session *s, const tph_args *args)
{
	return gev_execute(s, args, GEV_RECLAIM);
}

const tph_action tph_action_gangreclaim = {
    TPH_PLUGIN_ABI, "gangreclaim", gev_arg_spec, NULL, gangreclaim_execute, NULL,
};
