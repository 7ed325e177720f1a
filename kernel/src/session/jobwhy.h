/* Why jobs stay pending: what actions and plugins note during the session (cheap marks, no
 * text in loops), and the decision log's job and queue rows built from them at close
 * (jobwhy_rows.c, queue_rows.c). Session thread only. */
#ifndef TPH_JOBWHY_H
#define TPH_JOBWHY_H

#include "session/session_int.h"

/* Per-job notes. */
enum {
	TPH_NOTE_QUEUE = 1u << 0,   /* Allocatable refused one of its tasks */
	TPH_NOTE_REJECTED = 1u << 1 /* a JobEnqueueable vote rejected it */
};

typedef struct tph_jobwhy {
	const char **text; /* [job] the refusing plugin's tph_job_reason text, or NULL */
	uint16_t *plugin;  /* [job] index + 1 of the plugin that refused it, 0: none */
	uint8_t *note;     /* [job] TPH_NOTE_* */
	uint8_t *last_tx;  /* [task] Volcano's LastTransaction: status + 1 at the last discard */
	uint8_t *overused; /* [queue] Overused at close (before the plugins close) */
	const tph_valid_result *invalid; /* [job] a JobValid refusal at close, reason NULL: none */
	uint16_t *invalid_by;            /* [job] plugin index + 1 of that refusal */
	struct tph_qreport *reports;     /* [queue] tph_queue_report_set's copies */
} tph_jobwhy;

/* The notes, made on first use; NULL out of memory (the session's oom flag is set). */
tph_jobwhy *tph_jobwhy_get(tph_session *s);
/* A JobEnqueueable vote of plugin `plugin` (its index) rejected `job`. */
void tph_jobwhy_rejected(tph_session *s, tph_idx job, uint32_t plugin);
void tph_jobwhy_note(tph_session *s, tph_idx job, unsigned note);
/* A statement discarded an operation of `task` that had moved it to `status` (Volcano's
 * GenerateLastTxContext), or committed it (ClearLastTxContext). */
void tph_jobwhy_discarded(tph_session *s, tph_idx task, uint8_t status);
void tph_jobwhy_committed(tph_session *s, tph_idx task);
/* A pending job: a Pending task, or fewer ready tasks than minMember (from the counts). */
bool tph_jobwhy_pending(const tph_session *s, tph_idx job);
/* Before the plugins close: which queues are overused and which jobs JobValid refuses. */
int tph_jobwhy_before_close(tph_session *s);
/* After on_session_close, with the fit log still there: the queue rows, and the job rows
 * (tph_jobwhy_rows, which reads the queue rows and counts each job in its queue's row). */
int tph_queue_rows(tph_session *s);
int tph_jobwhy_rows(tph_session *s);

/* A queue's report, copied (queue_rows.c). */
typedef struct tph_qreport {
	int64_t *rows; /* deserved, request, inqueue, capability, guarantee: 5 * ndim; NULL: none */
	uint8_t has;   /* bit i: row i was given */
	double share;
	uint16_t plugin; /* index + 1 of the reporting plugin */
} tph_qreport;

/* Why queue q holds back `task` (TPH_NOIDX: any): closed, overused ("queue q1 overused: cpu
 * allocated 30 of deserved 24") or at its share, with numbers when a plugin reported them;
 * `tent` (NULL: none) is what the task's job held then and a discard has undone. */
void tph_queue_why(tph_session *s, tph_idx q, tph_idx task, const int64_t *tent, char *buf,
                   size_t cap);
/* Why a job in hard network-topology mode found no hypernode: its tier and the roomiest
 * hypernode within it (jobwhy_topo.c). */
void tph_jobwhy_topology(tph_session *s, tph_idx job, char *buf, size_t cap);
/* The plugin that reported queue q, or NULL. */
const char *tph_queue_reporter(const tph_session *s, tph_idx q);

#endif
