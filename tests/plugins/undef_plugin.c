/* A plugin that references a function nothing defines: dlopen (RTLD_NOW) must fail, and the
 * registry must say the plugin could not be loaded (TPH_EPLUGIN), not that a file is unreadable. */
#include "tephra/plugin.h"

int tph_test_undefined_function(void);

static int on_open(tph_session *s, void *st, const tph_args *args)
{
	(void)s, (void)st, (void)args;
	return tph_test_undefined_function();
}

static const tph_plugin undef = {
    .abi = TPH_PLUGIN_ABI, .name = "undef-external", .on_session_open = on_open};

const tph_plugin *tph_plugin_entry(uint32_t host_abi);

const tph_plugin *tph_plugin_entry(uint32_t host_abi)
{
	(void)host_abi;
	return &undef;
}
