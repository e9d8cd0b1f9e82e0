// The `kernbench` command line, as library functions: the shipped binary is
// kernbench_main(argc, argv); a user's own binary passes its own benches and
// gets the whole CLI (--topology, --set, --param, --json, --out, --oplog,
// --trace, --vcd, --data, --sweep, --quiet) for them.
//
// Exit codes: 0 success, 2 usage or configuration error, 3 simulation fault,
// 1 internal error.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "platform/bench/bench.h"  // Bench, BenchRegistry, BenchContext, BenchResult

namespace kb {

// What every process that runs the platform needs before its first SystemC
// object: the 1 ps time resolution and the stop-signal handlers (temporaries
// removed, child processes stopped, exit 128 + N). kernbench_main and run_main
// call it; a hand-written sc_main that uses neither calls it first. Later
// calls do nothing. (The SystemC banner is printed before sc_main: the main()
// of kb_main, platform/cli/quiet_main.cpp, keeps it off stdout.)
void init();

// The shipped benches; `--bench` defaults to milestone.
int kernbench_main(int argc, char* argv[]);

// The CLI over `registry`; `--bench` defaults to `default_bench`.
int kernbench_main(int argc, char* argv[], const BenchRegistry& registry,
                   const std::string& default_bench);

// A user's own run as a one-bench CLI: `body` runs on the elaborated
// platform of --topology/--set (BenchContext: the platform, the --param
// values, data mode), and its BenchResult is written like a bench's: the
// JSON result with stats and the op-log hash, the op log, trace and VCD.
int run_main(int argc, char* argv[], const std::string& name, const std::string& description,
             std::function<BenchResult(BenchContext&)> body, std::vector<ParamSpec> params = {});

}  // namespace kb
