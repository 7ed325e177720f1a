/* The built-in action table: the one place that lists tephra's own actions. */
#include "base/registry_int.h"

extern const tph_action tph_action_enqueue;
extern const tph_action tph_action_allocate;
extern const tph_action tph_action_backfill;
extern const tph_action tph_action_preempt;
extern const tph_action tph_action_reclaim;
extern const tph_action tph_action_shuffle;
extern const tph_action tph_action_gangpreempt;
extern const tph_action tph_action_gangreclaim;

/* One action per line. */
/* clang-format off */
const tph_action *const tph_builtin_actions[] = {
    &tph_action_enqueue,
    &tph_action_allocate,
    &tph_action_backfill,
    &tph_action_preempt,
    &tph_action_reclaim,
    &tph_action_shuffle,
    &tph_action_gangpreempt,
    &tph_action_gangreclaim,
    NULL,
};
/* clang-format on */
