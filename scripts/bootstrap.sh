#!/usr/bin/env bash
# The README's two set-up commands, from a fresh Debian machine:
#   bash scripts/bootstrap.sh run [kernbench args...]   install, build, run the default study
#   bash scripts/bootstrap.sh test                      install, build, run the whole test suite,
#                                                       build and run the examples against the
#                                                       installed package, then the suite again
#                                                       under ASan + UBSan
# Builds into ./build and ./build-asan (warnings are errors, unity build), with -j2 and ccache
# when present.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
case "$mode" in
  run|test) shift ;;
  *) echo "usage: bash scripts/bootstrap.sh run [kernbench args...] | test" >&2; exit 2 ;;
esac

bash scripts/install_deps.sh
# ccache keys on paths relative to the checkout, so a fresh clone in another
# folder (CI's) reuses what an earlier build of the same sources compiled.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# KB_UNITY_BUILD: sources compiled in batches, about half the compiler time of
# a build from scratch (CMakeLists.txt says why it is off by default).
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKB_WERROR=ON -DKB_UNITY_BUILD=ON
cmake --build build -j2

if [ "$mode" = run ]; then
  exec ./build/kernbench "$@"
fi

(cd build && ctest -j2 --output-on-failure --timeout 600)
# The installed package: every example in examples/ built out of tree against it.
bash scripts/check_examples.sh build

# The same suite again under AddressSanitizer + UndefinedBehaviorSanitizer
# (KB_SANITIZE; the runtime options are set for every test in
# tests/CMakeLists.txt). KB_TEST_SANITIZE=0 skips this pass.
if [ "${KB_TEST_SANITIZE:-1}" != 0 ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKB_WERROR=ON -DKB_SANITIZE=ON -DKB_UNITY_BUILD=ON
  cmake --build build-asan -j2
  cd build-asan
  # Platform::run() and finish_elaboration() resync ASan's idea of the
  # current stack after sc_start() (platform/process/sanitizer_support.h);
  # without that, SystemC's coroutine switches leave stale main-stack shadow
  # and teardown reports false stack-buffer-overflows.
  ctest -j2 --output-on-failure --timeout 600
fi
