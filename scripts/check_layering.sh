#!/usr/bin/env bash
# Checks that every #include of the library follows the layering
#
#   models  <-  firmware  <-  platform
#
#   models/    may include only models/ (and system or third-party headers)
#   firmware/  may include models/ and firmware/
#   platform/  may include models/, firmware/ and platform/ (never tests/)
#   tests/     anything (not checked)
#
# An include is named by its path from the repository root (the one include
# directory of our code); a quoted include that names a file beside the
# including one is resolved from there. Anything that is not under models/,
# firmware/, platform/ or tests/ is a system or third-party header.
#
#   bash scripts/check_layering.sh [ROOT]     ROOT: the repository (default: this one)
#
# Exit status 0 when every include follows the rule; 1 otherwise, with one
# line per offending include on stderr: file:line: the rule it breaks.
# Pure bash and coreutils: CI runs it before anything is installed.
set -euo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root"

rule_of() {
  case "$1" in
    models) echo "models/ may include only models/ and system or third-party headers" ;;
    firmware) echo "firmware/ may include only models/ and firmware/" ;;
    platform) echo "platform/ may include models/, firmware/ and platform/, never tests/" ;;
  esac
}

# Whether layer $1 may include a header under our top-level directory $2.
allowed() {
  case "$1:$2" in
    models:models) return 0 ;;
    firmware:models | firmware:firmware) return 0 ;;
    platform:models | platform:firmware | platform:platform) return 0 ;;
  esac
  return 1
}

include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*([<"])([^">]+)[">]'
files=0
bad=0
while IFS= read -r -d '' f; do
  files=$((files + 1))
  layer=${f%%/*}
  n=0
  while IFS= read -r text || [ -n "$text" ]; do
    n=$((n + 1))
    [[ $text =~ $include_re ]] || continue
    target=${BASH_REMATCH[2]}
    # A quoted include of a file beside this one: its path from the root.
    if [ "${BASH_REMATCH[1]}" = '"' ] && [ -e "$(dirname "$f")/$target" ]; then
      target=$(realpath -m --relative-to=. "$(dirname "$f")/$target")
    fi
    top=${target%%/*}
    case "$top" in
      models | firmware | platform | tests) ;;
      *) continue ;;  # system or third-party
    esac
    if ! allowed "$layer" "$top"; then
      echo "$f:$n: includes $target: $(rule_of "$layer")" >&2
      bad=$((bad + 1))
    fi
  done < "$f"
done < <(find models firmware platform -type f \
  \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.cc' -o -name '*.in' \) -print0 |
  sort -z)

if [ "$bad" -ne 0 ]; then
  echo "check_layering: $bad include(s) against the direction models <- firmware <- platform" >&2
  exit 1
fi
echo "check_layering: ok ($files files follow models <- firmware <- platform)"
