/* The session's shareable devices (Volcano's NodeInfo.Others under api.RegisteredDevices): the
 * cards of each node and who holds them. One session-shared object serves two plugins, as in
 * Volcano: deviceshare builds it at open from its arguments (which device kinds are enabled)
 * and answers the predicate and the node order from it; the predicates plugin's allocate and
 * deallocate events take and give back the cards of each task placed (Volcano's predicates
 * calls Devices.Allocate and Release). Without deviceshare in the conf the object stays empty
 * and predicates' events skip it after one load.
 *
 * Written at open and by event handlers (session thread); read by any thread. */
#ifndef TPH_LIB_DEVICES_H
#define TPH_LIB_DEVICES_H

#include "tephra/plugin.h"

typedef struct tph_devices tph_devices;
/* An event for `task`, which sits (or sat, for a release) on a node with devices. */
typedef int (*tph_devices_event_fn)(tph_devices *d, tph_session *s, tph_idx task);

struct tph_devices {
	/* [task] the task asks a device of an enabled kind (Volcano's HasDeviceRequest on any
	 * registered device): only those reach `allocate` and `release`. NULL: no kind is
	 * enabled. Set once by deviceshare's open. */
	const uint8_t *asks;
	/* Devices.Allocate of every enabled kind on the task's node: choose its cards, take them
	 * and set the assignment as bind annotations; a non-zero status when it does not fit
	 * (the allocation is then refused). */
	tph_devices_event_fn allocate;
	/* Devices.Release on the node the task left: give back what its release gives back. */
	tph_devices_event_fn release;
	void *impl; /* deviceshare's state */
};

static inline int tph_devices_init(void *obj, tph_session *s)
{
	(void)obj;
	(void)s;
	return TPH_OK;
}

/* The session's object (zeroed until deviceshare fills it). */
static inline int tph_devices_share(tph_session *s, tph_devices **out)
{
	void *d;
	int rc = tph_session_shared(s, "devices", sizeof(tph_devices), tph_devices_init, &d);
	*out = rc ? NULL : (tph_devices *)d;
	return rc;
}

#endif
