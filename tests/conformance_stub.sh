#!/bin/sh
# A stand-in for `tephra` in the conformance gate's self-tests (tests/CMakeLists.txt): `check DIR`
# reports only part of DIR's fixtures, so the gate must fail. $TPH_STUB says what it prints:
#   none        only the summary "0 passed, 0 failed" (exit 0)
#   fail:PATH   "FAIL DIR/PATH: ..." and "0 passed, 1 failed" (exit 1), as a check that ran
#               only the fixtures of the pending list would
case "$TPH_STUB" in
none)
	echo "0 passed, 0 failed"
	;;
fail:*)
	echo "FAIL $2/${TPH_STUB#fail:}: stub"
	echo "0 passed, 1 failed"
	exit 1
	;;
*)
	echo "conformance_stub.sh: TPH_STUB must be none or fail:PATH" >&2
	exit 2
	;;
esac
