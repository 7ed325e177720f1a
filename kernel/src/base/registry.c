/* Registries: built-in plugin and action tables, and external plugins from shared objects. */
#include "base/registry_int.h"

#include "diag.h"
#include "mem.h"
#include "names.h"
#include "tephra/registry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct ext_plugin {
	char *path;
	void *handle;
	const tph_plugin *desc;
} ext_plugin;

/* Guards the external list: hosts may open sessions from several threads. */
static pthread_mutex_t ext_lock = PTHREAD_MUTEX_INITIALIZER;
static ext_plugin *ext;
static uint32_t n_ext, cap_ext;

static const tph_plugin *find_external(const char *name)
{
	const tph_plugin *found = NULL;
	pthread_mutex_lock(&ext_lock);
	for (uint32_t i = 0; i < n_ext && !found; i++)
		if (!strcmp(ext[i].desc->name, name))
			found = ext[i].desc;
	pthread_mutex_unlock(&ext_lock);
	return found;
}

static bool is_builtin(const char *name)
{
	for (size_t i = 0; tph_builtin_plugins[i]; i++)
		if (!strcmp(tph_builtin_plugins[i]->name, name))
			return true;
	return false;
}

int tph_registry_plugin(const char *name, const tph_plugin **out, tph_diag *d)
{
	const tph_plugin *p = find_external(name);
	for (size_t i = 0; !p && tph_builtin_plugins[i]; i++)
		if (!strcmp(tph_builtin_plugins[i]->name, name))
			p = tph_builtin_plugins[i];
	*out = p;
	if (p)
		return TPH_OK;
	if (tph_plugin_name_known(name))
		return tph_diag_set(d, TPH_ENOTSUP, "plugin %s is not built yet", name);
	return tph_diag_set(d, TPH_ENOENT, "unknown plugin %s", name);
}

bool tph_registry_plugin_known(const char *name)
{
	return tph_plugin_name_known(name) || find_external(name) || is_builtin(name);
}

int tph_registry_action(const char *name, const tph_action **out, tph_diag *d)
{
	*out = NULL;
	for (size_t i = 0; tph_builtin_actions[i]; i++)
		if (!strcmp(tph_builtin_actions[i]->name, name))
			*out = tph_builtin_actions[i];
	if (*out)
		return TPH_OK;
	if (tph_action_name_known(name))
		return tph_diag_set(d, TPH_ENOTSUP, "action %s is not built yet", name);
	return tph_diag_set(d, TPH_ENOENT, "unknown action %s", name);
}

/* A built-in name is not taken: the external plugin overrides it (tph_registry_plugin looks
 * external plugins up first), which add_desc says aloud. */
static int check_desc(const char *path, const tph_plugin *p, tph_diag *d)
{
	if (!p)
		return tph_diag_set(d, TPH_EINVAL, "%s: %s returned no plugin", path,
		                    TPH_PLUGIN_ENTRY);
	if (p->abi < TPH_PLUGIN_ABI_MIN || p->abi > TPH_PLUGIN_ABI)
		return tph_diag_set(d, TPH_EABI, "%s: plugin ABI %u, this tephra loads %u to %u",
		                    path, p->abi, TPH_PLUGIN_ABI_MIN, TPH_PLUGIN_ABI);
	if (!p->name || !*p->name || !p->on_session_open)
		return tph_diag_set(d, TPH_EINVAL, "%s: plugin has no name or no on_session_open",
		                    path);
	for (uint32_t i = 0; i < n_ext; i++)
		if (!strcmp(ext[i].desc->name, p->name))
			return tph_diag_set(d, TPH_EEXIST,
			                    "%s: a plugin named %s is already registered", path,
			                    p->name);
	return TPH_OK;
}

/* Takes `path` (NULL in-process) on success. */
static int add_desc(char *path, void *handle, const tph_plugin *p, tph_diag *d)
{
	if (tph_grow(&ext, &cap_ext, n_ext + 1, sizeof *ext))
		return tph_diag_set(d, TPH_ENOMEM, "%s: out of memory",
		                    path ? path : "(in-process)");
	ext[n_ext++] = (ext_plugin){path, handle, p};
	if (is_builtin(p->name))
		tph_diag_warn(d, "plugin %s %s%s overrides the built-in", p->name,
		              path ? "from " : "registered ", path ? path : "in-process");
	return TPH_OK;
}

static int load_one(const char *path, tph_diag *d)
{
	for (uint32_t i = 0; i < n_ext; i++)
		if (ext[i].path && !strcmp(ext[i].path, path))
			return TPH_OK;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return tph_diag_set(d, TPH_EPLUGIN, "%s: cannot load: %s", path, dlerror());
	/* dlopen knows a file by device and inode: the same object under another spelling of its
	 * path (./x.so, a directory's x.so) is loaded already; drop the extra reference. */
	for (uint32_t i = 0; i < n_ext; i++)
		if (ext[i].handle == h) {
			dlclose(h);
			return TPH_OK;
		}
	tph_plugin_entry_fn entry;
	*(void **)&entry = dlsym(h, TPH_PLUGIN_ENTRY);
	int rc = entry ? TPH_OK
	               : tph_diag_set(d, TPH_EPLUGIN, "%s: no symbol %s", path, TPH_PLUGIN_ENTRY);
	const tph_plugin *p = rc ? NULL : entry(TPH_PLUGIN_ABI);
	if (!rc)
		rc = check_desc(path, p, d);
	char *copy = rc ? NULL : tph_strndup(path, strlen(path));
	if (!rc && !copy)
		rc = tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", path);
	if (!rc)
		rc = add_desc(copy, h, p, d);
	if (rc) {
		tph_free(copy);
		dlclose(h);
	}
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(const char *dir, tph_diag *d)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return tph_diag_set(d, TPH_EIO, "%s: cannot open directory", dir);
	char **names = NULL;
	uint32_t n = 0, cap = 0;
	int rc = TPH_OK;
	for (struct dirent *e; !rc && (e = readdir(dp));) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".so"))
			continue;
		char *full = tph_malloc(strlen(dir) + len + 2);
		if (!full || tph_grow(&names, &cap, n + 1, sizeof *names)) {
			tph_free(full);
			rc = tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", dir);
			break;
		}
		strcpy(full, dir);
		strcat(full, "/");
		strcat(full, e->d_name);
		names[n++] = full;
	}
	closedir(dp);
	qsort(names, n, sizeof *names, cmp_str);
	for (uint32_t i = 0; i < n; i++) {
		if (!rc)
			rc = load_one(names[i], d);
		tph_free(names[i]);
	}
	tph_free(names);
	return rc;
}

int tph_plugins_load(const char *path, tph_diag *d)
{
	tph_diag_begin(d);
	struct stat st;
	if (!path)
		return tph_diag_set(d, TPH_EINVAL, "plugins: no path");
	if (stat(path, &st) != 0)
		return tph_diag_set(d, TPH_ENOENT, "%s: no such file or directory", path);
	pthread_mutex_lock(&ext_lock);
	int rc = S_ISDIR(st.st_mode) ? load_dir(path, d) : load_one(path, d);
	pthread_mutex_unlock(&ext_lock);
	return rc;
}

int tph_plugins_register(const tph_plugin *p, tph_diag *d)
{
	tph_diag_begin(d);
	if (!p)
		return tph_diag_set(d, TPH_EINVAL, "plugins: no descriptor");
	pthread_mutex_lock(&ext_lock);
	bool again = false;
	for (uint32_t i = 0; i < n_ext && !again; i++)
		again = ext[i].desc == p;
	int rc = again ? TPH_OK : check_desc("(in-process)", p, d);
	if (!rc && !again)
		rc = add_desc(NULL, NULL, p, d);
	pthread_mutex_unlock(&ext_lock);
	return rc;
}

/* Sessions between open and free: their plugin instances run code from the shared objects. */
static _Atomic uint32_t open_sessions;

void tph_registry_session_open(void)
{
	atomic_fetch_add(&open_sessions, 1);
}

void tph_registry_session_free(void)
{
	atomic_fetch_sub(&open_sessions, 1);
}

int tph_plugins_unload_all(void)
{
	if (atomic_load(&open_sessions))
		return TPH_EINVAL;
	pthread_mutex_lock(&ext_lock);
	for (uint32_t i = 0; i < n_ext; i++) {
		if (ext[i].handle)
			dlclose(ext[i].handle);
		tph_free(ext[i].path);
	}
	tph_free(ext);
	ext = NULL;
	n_ext = cap_ext = 0;
	pthread_mutex_unlock(&ext_lock);
	return TPH_OK;
}
