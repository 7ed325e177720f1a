// tephra_bench: the micro and macro suites in one program. Benchmarks are registered at
// startup (some depend on which plugins are built and which scenario files exist), then run
// with google benchmark's usual flags (--benchmark_filter, --benchmark_repetitions, ...).
#include <benchmark/benchmark.h>

#include "bench.h"

int main(int argc, char **argv)
{
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	tb::register_micro();
	tb::register_macro();
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
