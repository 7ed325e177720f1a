// tephra_bench: the micro and macro suites in one program. Benchmarks are registered at
// startup (some depend on which plugins are built and which scenario files exist), then run
// with google benchmark's usual flags (--benchmark_filter, --benchmark_repetitions, ...).
// Environment: TPH_BENCH_SCENARIOS (where the generated profiles are), TPH_BENCH_PROFILES
// (which of them; "none" for none), TPH_BENCH_MICRO=0 (no micro benchmarks).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>

#include "bench.h"

int main(int argc, char **argv)
{
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	// bench/run.sh runs the micro suite and each profile in processes of their own, so that
	// peak RSS belongs to one profile: TPH_BENCH_MICRO=0 leaves the micro suite out.
	const char *micro = std::getenv("TPH_BENCH_MICRO");
	if (!micro || std::strcmp(micro, "0") != 0)
		tb::register_micro();
	tb::register_macro();
	tb::register_macro_kai();
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
