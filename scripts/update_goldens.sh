#!/usr/bin/env bash
# Regenerates the determinism goldens (tests/golden/*.json) from the current
# build, deliberately: run it when a change to a model, a bench or the JSON
# layout is meant to change results, then review `git diff tests/golden` and
# commit the goldens with the change that explains them.
#
#   bash scripts/update_goldens.sh        # uses ./build (KB_BUILD_DIR to override)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${KB_BUILD_DIR:-build}"
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKB_WERROR=ON
cmake --build "$build" -j2 --target kernbench kb_golden_tests
KB_UPDATE_GOLDENS=1 "./$build/tests/kb_golden_tests" --gtest_filter='Runs/Golden.*' --gtest_brief=1
if git rev-parse --git-dir > /dev/null 2>&1; then git --no-pager diff --stat -- tests/golden; fi
