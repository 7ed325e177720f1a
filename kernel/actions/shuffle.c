/* The shuffle action (Volcano's actions/shuffle): the VictimTasks plugins pick among the
 * running tasks of the session's jobs, and each pick is evicted at once (ssn.Evict), in
 * snapshot order where Volcano walks a map. */
#include "common/action_util.h"
#include "session/ep.h"
#include "session/statement.h"

static int shuffle_execute(tph_session *s, const tph_args *args)
{
	(void)args;
	tph_idx *tasks = TPH_ACT_NEW(s, tph_idx, s->tasks.n + 1);
	uint8_t *victim = TPH_ACT_NEW(s, uint8_t, s->tasks.n + 1);
	if (!tasks || !victim)
		return TPH_ENOMEM;
	uint32_t n = 0;
	for (tph_idx t = 0; t < s->tasks.n; t++)
		if (s->tasks.job[t] != TPH_NOIDX && s->tasks.status[t] == TPH_TS_RUNNING)
			tasks[n++] = t;
	if (!tph_victim_tasks(s, tasks, n, victim))
		return TPH_OK;
	/* ssn.Evict publishes each eviction by itself: a statement of one, committed. */
	int rc = TPH_OK;
	for (uint32_t i = 0; i < n && rc != TPH_ENOMEM; i++) {
		if (!victim[i])
			continue;
		tph_statement st;
		tph_stmt_init(&st, s);
		rc = tph_stmt_evict(&st, tasks[i], "shuffle");
		rc = rc == TPH_OK ? tph_stmt_commit(&st) : (tph_stmt_discard(&st), rc);
	}
	return rc == TPH_ENOMEM ? rc : TPH_OK;
}

const tph_action tph_action_shuffle = {
    .abi = TPH_PLUGIN_ABI,
    .name = "shuffle",
    .execute = shuffle_execute,
};
