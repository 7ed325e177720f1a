/* Bind annotations: what plugins set on a task during the session (Volcano's
 * TaskInfo.PodAnnotations beyond the pod's own, such as device assignments), recorded through
 * the current statement so that a discard undoes them, and listed on the task's bind at close. */
#include "session/session_int.h"

#include "statement.h"

#include <stdlib.h>
#include <string.h>

static tph_ann *find(const tph_session *s, tph_idx task, const char *key)
{
	tph_ann *a = s->ann ? s->ann[task] : NULL;
	while (a && strcmp(a->key, key))
		a = a->next;
	return a;
}

int tph_task_annotate(tph_session *s, tph_idx task, const char *key, const char *value)
{
	if (!s || task >= s->tasks.n || !key || !key[0])
		return TPH_EINVAL;
	if (!s->ann && !(s->ann = TPH_ARENA_NEW(&s->arena, tph_ann *, s->tasks.n)))
		return TPH_ENOMEM;
	tph_ann *a = find(s, task, key);
	if (!a && !value)
		return TPH_OK;
	if (!a) {
		a = TPH_ARENA_NEW(&s->arena, tph_ann, 1);
		if (!a || !(a->key = tph_arena_strndup(&s->arena, key, strlen(key))))
			return TPH_ENOMEM;
		a->next = s->ann[task];
		s->ann[task] = a;
	}
	const char *v = value ? tph_arena_strndup(&s->arena, value, strlen(value)) : NULL;
	if (value && !v)
		return TPH_ENOMEM;
	if (s->stmt && tph_stmt_note_ann(s->stmt, a, a->value))
		return TPH_ENOMEM;
	a->value = v;
	return TPH_OK;
}

const char *tph_task_annotation(const tph_session *s, tph_idx task, const char *key)
{
	if (!s || task >= s->tasks.n || !key)
		return NULL;
	const tph_ann *a = find(s, task, key);
	return a ? a->value : NULL;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const tph_kv *)a)->key, ((const tph_kv *)b)->key);
}

int tph_bind_annotations(tph_session *s, tph_idx task, tph_kv_list *out)
{
	*out = (tph_kv_list){NULL, 0};
	uint32_t n = 0;
	for (const tph_ann *a = s->ann ? s->ann[task] : NULL; a; a = a->next)
		n += a->value != NULL;
	if (!n)
		return TPH_OK;
	tph_kv *kv = TPH_ARENA_NEW(&s->arena, tph_kv, n);
	if (!kv)
		return TPH_ENOMEM;
	uint32_t k = 0;
	for (const tph_ann *a = s->ann[task]; a; a = a->next)
		if (a->value)
			kv[k++] = (tph_kv){a->key, a->value};
	qsort(kv, n, sizeof *kv, by_key);
	*out = (tph_kv_list){kv, n};
	return TPH_OK;
}
