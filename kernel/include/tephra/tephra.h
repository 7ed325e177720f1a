/* tephra: a parallel, data-oriented scheduling kernel that makes the Volcano scheduler's
 * decisions. This umbrella header includes the whole public API. */
#ifndef TEPHRA_TEPHRA_H
#define TEPHRA_TEPHRA_H

#include "tephra/alloc.h"
#include "tephra/args.h"
#include "tephra/cluster.h"
#include "tephra/conf.h"
#include "tephra/kai.h"
#include "tephra/plugin.h"
#include "tephra/probe.h"
#include "tephra/registry.h"
#include "tephra/resource.h"
#include "tephra/scenario.h"
#include "tephra/session.h"
#include "tephra/status.h"
#include "tephra/textw.h"
#include "tephra/version.h"

#endif
