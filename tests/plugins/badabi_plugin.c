/* A plugin built for another ABI version: loading it must fail with TPH_EABI. */
#include "tephra/plugin.h"

static int on_open(tph_session *s, void *st, const tph_args *args)
{
	return 0;
}

static const tph_plugin bad = {
    .abi = TPH_PLUGIN_ABI + 100,
    .name = "bad-abi",
    .on_session_open = on_open,
};

const tph_plugin *tph_plugin_entry(uint32_t host_abi);

const tph_plugin *tph_plugin_entry(uint32_t host_abi)
{
	(void)host_abi;
	return &bad;
}
