#!/usr/bin/env bash
# Runs clang-tidy (the checks in .clang-tidy) over our own sources in a build
# directory's compile_commands.json, then lists the findings per file and per
# check. Exit status 1 when there is any finding.
#
#   bash scripts/clang_tidy.sh [FILE-REGEX...]     # default: models/ platform/ firmware/ tests/
#
# KB_TIDY_JOBS (default 2) parallel clang-tidy processes.
# KB_BUILD_DIR (default build-tidy) is configured on first use with
# CMAKE_EXPORT_COMPILE_COMMANDS=ON; nothing needs to be built except the
# generated embedded-topology source. The full log goes to $KB_BUILD_DIR/clang-tidy.log.
set -euo pipefail
cd "$(dirname "$0")/.."
src="$(pwd)"
build="${KB_BUILD_DIR:-build-tidy}"

tidy=""
for t in clang-tidy-14 clang-tidy; do
  if command -v "$t" > /dev/null; then tidy="$t"; break; fi
done
runner=""
for r in run-clang-tidy-14 run-clang-tidy; do
  if command -v "$r" > /dev/null; then runner="$r"; break; fi
done
if [ -z "$tidy" ] || [ -z "$runner" ]; then
  echo "clang_tidy.sh: clang-tidy not found (apt-get install clang-tidy)" >&2
  exit 2
fi

if [ ! -f "$build/compile_commands.json" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    > "$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 2; }
fi

if [ $# -gt 0 ]; then
  regexes=("$@")
else
  regexes=("$src/(models|platform|firmware|tests)/")
fi
log="$build/clang-tidy.log"
"$runner" -clang-tidy-binary "$(command -v "$tidy")" -p "$build" -quiet -j "${KB_TIDY_JOBS:-2}" "${regexes[@]}" \
  > "$log" 2> "$build/clang-tidy.stderr" || true

# "path:line:col: warning: message [check-name]", our files only, each once
# (a header is reported once per translation unit that includes it).
findings=$(sed -E 's/\x1b\[[0-9;]*m//g' "$log" |
  grep -E '^/.*:[0-9]+:[0-9]+: (warning|error): .*\[[a-z0-9.,-]+\]$' |
  grep -E "^$src/(models|platform|firmware|tests)/" | sed "s|^$src/||" | sort -u || true)
if [ -z "$findings" ]; then
  echo "clang-tidy: no findings"
  exit 0
fi
count=$(printf '%s\n' "$findings" | wc -l)
echo "clang-tidy: $count findings (full log: $log)"
echo
echo "per file:"
printf '%s\n' "$findings" | cut -d: -f1 | sort | uniq -c | sort -rn
echo
echo "per check:"
printf '%s\n' "$findings" | sed -E 's/.*\[([^]]+)\]$/\1/' | sort | uniq -c | sort -rn
echo
printf '%s\n' "$findings"
exit 1
