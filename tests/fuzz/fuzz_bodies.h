// The bodies of the fuzz targets, shared by the libFuzzer executables
// (tests/fuzz/fuzz_*.cpp, built with -DKB_FUZZ=ON and clang) and by the unit
// test that replays the committed seed corpora and crash regressions on every
// build (tests/unit/test_fuzz_regressions.cpp), so a fixed crash stays fixed
// even where clang is not installed.
//
// Contract: a body returns normally for any input. The errors a user may
// cause (kb::ConfigError, kb::UsageError) are caught inside; any other
// exception escapes, and a broken invariant of a value the parser accepted
// aborts with a message: both are bugs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kb {
namespace fuzz {

// The input is topology YAML text: load_topology_text + validation.
void topology_yaml(const uint8_t* data, size_t size);

// The input is up to 16 `--set` overrides, one per line, applied to the
// embedded default topology.
void set_override(const uint8_t* data, size_t size);

// The input is up to 16 `--param` overrides, one per line, for a bench with
// the dma bench's parameters plus the probe's; then every parameter is read
// through integer(), number(), parse_address_text() and parse_pe_text().
void bench_params(const uint8_t* data, size_t size);

// The input is a .npy file (platform/runtime/npy.h, what data mode reads
// tensors from): parse_npy, then the accepted array must be consistent and
// survive format_npy + parse_npy unchanged.
void npy(const uint8_t* data, size_t size);

// The input is a sweep spec (platform/sweep/sweep_spec.h, what kernbench
// --sweep reads): load_sweep_spec_text either throws ConfigError or gives a
// spec whose grid expands to the product of its axes, each point's command
// line naming the bench and its JSON file.
void sweep_spec(const uint8_t* data, size_t size);

// The input chooses a small topology (knobs of tiny.yaml, bad values among
// them), --set lines, a bench with parameter values, data mode and outputs;
// the real kernbench binary runs it in a child process under a time and a
// memory limit. Anything but a clean outcome (exit 0, or 2/3 with one
// "kernbench: " line, no sanitizer text, no temporary left) aborts.
// KB_FUZZ_KERNBENCH overrides the binary (default: this build's).
void simulate(const uint8_t* data, size_t size);

// Splits on '\n' into at most `max_lines` lines (the rest is ignored).
std::vector<std::string> split_lines(const uint8_t* data, size_t size, size_t max_lines);

}  // namespace fuzz
}  // namespace kb
