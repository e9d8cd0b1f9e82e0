#!/usr/bin/env bash
# The README's two set-up commands, from a fresh Debian machine:
#   bash scripts/bootstrap.sh run [kernbench args...]   install, build, run the default study
#   bash scripts/bootstrap.sh test                      install, build, run the whole test suite
# Builds into ./build (warnings are errors), with -j2 and ccache when present.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
case "$mode" in
  run|test) shift ;;
  *) echo "usage: bash scripts/bootstrap.sh run [kernbench args...] | test" >&2; exit 2 ;;
esac

bash scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKB_WERROR=ON
cmake --build build -j2

if [ "$mode" = run ]; then
  exec ./build/kernbench "$@"
else
  cd build
  exec ctest -j2 --output-on-failure --timeout 600
fi
