/* The built-in action table: the one place that lists tephra's own actions. */
#include "registry.h"

extern const tph_action tph_action_preempt;
extern const tph_action tph_action_reclaim;
extern const tph_action tph_action_shuffle;

const tph_action *const tph_builtin_actions[] = {
    &tph_action_preempt,
    &tph_action_reclaim,
    &tph_action_shuffle,
    NULL,
};
