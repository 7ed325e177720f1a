#!/usr/bin/env python3
"""Load a scenario, run one session over it and say why each pod is pending.

    python3 bindings/python/examples/pending.py SCENARIO [--threads N]

A pending pod's reasons are what the predicates said of the nodes it tried ("2 Insufficient
cpu"); a pod with none tried no node at all (its queue had no room, its gang had already failed,
or enqueue did not admit its podgroup), and the podgroups' phases say where each job stands."""

import argparse
import sys

import tephra


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        with tephra.load_scenario(args.scenario) as scn:
            d = scn.run(threads=args.threads)
    except tephra.TephraError as e:
        print(f"pending: {e}", file=sys.stderr)
        return 2
    print(f"{scn.name or args.scenario}: {len(d.binds)} bound, {len(d.pending)} pending")
    for p in d.pending:
        why = "; ".join(p.reasons) or "no node tried (its job stopped first: gang, queue, enqueue)"
        print(f"  {p.pod}: {why}")
    for g in d.pod_groups:
        if g.phase not in ("Running", "Completed"):
            print(f"  podgroup {g.name}: {g.phase}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
