/* The built-in KAI action table: the one place that lists the kai flavour's own actions. */
#include "session/kai/kai_int.h"

extern const tph_kai_action tph_kai_action_allocate;
extern const tph_kai_action tph_kai_action_consolidation;
extern const tph_kai_action tph_kai_action_preempt;
extern const tph_kai_action tph_kai_action_reclaim;
extern const tph_kai_action tph_kai_action_stalegangeviction;

/* One action per line. */
/* clang-format off */
const tph_kai_action *const tph_kai_builtin_actions[] = {
    &tph_kai_action_allocate,
    &tph_kai_action_consolidation,
    &tph_kai_action_preempt,
    &tph_kai_action_reclaim,
    &tph_kai_action_stalegangeviction,
    NULL,
};
/* clang-format on */
