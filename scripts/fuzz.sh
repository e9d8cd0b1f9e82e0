#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan into
# ./build-fuzz and runs each one for SECONDS (default 60), then prints each
# target's executions per second and coverage (libFuzzer's final stats).
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
#   bash scripts/fuzz.sh --available     exit 0 if clang++ with libFuzzer is installed
#
# Seeds: tests/fuzz/corpus/<target>/ (committed), tests/fuzz/regressions/<target>/
# (inputs that once crashed; the unit suite replays both) and, for the YAML
# target, topologies/. What a run discovers accumulates in build-fuzz/corpus/
# (not committed). A crash, sanitizer report, uncaught exception, timeout
# (> 10 s for one input) or out-of-memory leaves its input in
# build-fuzz/artifacts/ and makes the script exit 1: turn it into a
# regression (copy the file to tests/fuzz/regressions/<target>/, add a named
# test in tests/unit/test_fuzz_regressions.cpp) and fix the bug.
#
# Needs clang++ with libFuzzer (Debian: clang, libclang-rt-dev); downloads nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

cxx="${KB_FUZZ_CXX:-}"
if [ -z "$cxx" ]; then
  for c in clang++ clang++-14; do
    if command -v "$c" > /dev/null; then cxx="$c"; break; fi
  done
fi
# clang alone is not enough: libFuzzer ships in the compiler-rt package.
has_libfuzzer() {
  [ -n "$cxx" ] && echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
    "$cxx" -x c++ -fsanitize=fuzzer -o /dev/null - > /dev/null 2>&1
}
if [ "${1:-}" = --available ]; then
  has_libfuzzer
  exit
fi
if ! has_libfuzzer; then
  echo "fuzz.sh: needs clang++ with libFuzzer (apt-get install clang libclang-rt-dev)" >&2
  exit 2
fi

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_topology_yaml fuzz_set_override fuzz_bench_params fuzz_npy fuzz_sweep_spec fuzz_simulate)

build=build-fuzz
# The fuzz targets never reach PE_MATH on RTL: leave the verilated model out
# of this build (it is compiled, warnings as errors, by the gcc builds).
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DKB_FUZZ=ON -DKB_BUILD_TESTS=OFF -DKB_WITH_RTL=OFF -DKB_WERROR=ON -DKB_UNITY_BUILD=ON \
  > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log" >&2; exit 2; }
cmake --build "$build" -j2 --target "${targets[@]}"

# UBSan: stop at the first report so libFuzzer records the input (by default
# UBSan prints and carries on). ASan: the fuzz bodies start no SystemC
# process, so no coroutine-stack caveat applies here (compare tests/CMakeLists.txt).
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

mkdir -p "$build/artifacts"
status=0
summary=()
for t in "${targets[@]}"; do
  work="$build/corpus/$t"
  mkdir -p "$work"
  seeds=()
  for d in "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t"; do
    [ -d "$d" ] && seeds+=("$d")
  done
  [ "$t" = fuzz_topology_yaml ] && seeds+=(topologies)
  log="$build/$t.log"
  echo "== $t: ${seconds}s"
  rc=0
  # fuzz_simulate waits for a whole simulation per input and enforces its own
  # 60 s limit on it; libFuzzer's per-input timeout must be longer.
  timeout=10
  [ "$t" = fuzz_simulate ] && timeout=120
  "./$build/tests/fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 -timeout="$timeout" \
    -rss_limit_mb=2048 -artifact_prefix="$build/artifacts/$t-" "$work" "${seeds[@]}" \
    > "$log" 2>&1 || rc=$?
  # (A fuzzer that dies early prints no stats: none of these may fail the script.)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1 || true)
  cov=$({ grep -o 'cov: [0-9]*' "$log" || true; } | tail -1 | cut -d' ' -f2)
  ft=$({ grep -o 'ft: [0-9]*' "$log" || true; } | tail -1 | cut -d' ' -f2)
  corpus=$(find "$work" -type f | wc -l)
  if [ "$rc" -ne 0 ]; then
    status=1
    echo "!! $t failed (exit $rc); log: $log" >&2
    grep -E 'ERROR|runtime error|Test unit written|uncaught|invariant' "$log" | head -20 >&2 || true
  fi
  summary+=("$(printf '%-20s %-6s %10s %8s %6s %6s %7s' "$t" "$([ "$rc" -eq 0 ] && echo ok || echo FAIL)" \
    "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$corpus")")
done

echo
printf '%-20s %-6s %10s %8s %6s %6s %7s\n' target result execs exec/s cov ft corpus
printf '%s\n' "${summary[@]}"
exit "$status"
