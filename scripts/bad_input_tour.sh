#!/usr/bin/env bash
# bad_input_tour.sh: run kernbench on a few hundred bad or hostile-but-realistic inputs
# and classify what each one does.
#
#   bash scripts/bad_input_tour.sh [KERNBENCH_BINARY]      (default ./build/kernbench)
#
# Every case runs the binary in a fresh scratch directory (mktemp -d) with
# `timeout 60`, an 8 GiB address-space cap (prlimit --as; none for a sanitizer
# build, which reserves terabytes of shadow memory), stdin from /dev/null and
# `nice -n 10`. Each case states the exit code it expects: 2 for a usage, configuration
# or output error, 3 for a simulation fault, 0 where success is correct. Some
# cases accept two codes ("2|3") where either is a fair reading of the contract;
# the case says so. One line is printed per case:
#
#   CLASS  rc=RC exp=EXPECTED  CASE-NAME  first line of stderr [| what was lost]
#
# Classes:
#   clear-error  the expected non-zero code, stderr exactly one non-empty line starting
#                with "kernbench: ", no sanitizer text, nothing lost or left behind
#   ok-expected  expected success (exit 0) and nothing lost or left behind
#   wrong-code   a clean one-line error (or exit 0) but not the expected code
#   unclear      an error exit whose stderr is not one "kernbench: " line (empty,
#                several lines, a SystemC report, "terminate called ...")
#   crash        killed by a signal (rc >= 128, not 124) the case did not ask for
#   hang         timed out (rc 124, or killed after the timeout)
#   sanitizer    AddressSanitizer / LeakSanitizer / UBSan text in the output
#   lost-file    a protected file was destroyed or changed (a special file replaced by a
#                regular one, an earlier result overwritten by a failed run, a file
#                written by a run that should have stopped first), or leftovers
#                (*.tmp, *.partial*, .kb-*, *.jobs after a failure, processes still
#                running in the scratch directory) were found after the run
#   skip         not run here (e.g. needs root, or must not run as root)
#
# Two allowances for sweeps: a sweep's progress line on stderr ("\rsweep: 3/8 done ...")
# is not counted as an error line, and a sweep case whose points fail may report them
# in its table on stdout instead of a stderr line (the case says so: STDOUT_REPORT).
# A run that cannot be executed at all (exit 126/127 from exec, e.g. the binary is being
# relinked by a build) is retried every 5 s for up to 5 minutes, not classified.
#
# A summary with the count per class follows, then the cases outside
# clear-error / ok-expected / skip (the defect list). Exit status: 0 if there
# are none, 1 otherwise, 2 if the tour itself cannot run.
#
# Environment: TOUR_ONLY=REGEX runs only the cases whose name matches (grep -E);
# TOUR_TIMEOUT=SECONDS (default 60); TOUR_KEEP=1 keeps the scratch directories;
# TOUR_TSV=FILE also writes one tab-separated row per case; TOUR_SNAPSHOT=0 runs the
# binary in place instead of a copy taken at the start (the copy keeps a concurrent
# rebuild from mixing two builds into one tour).
#
# Cases that touch /dev/full and /dev/stdout check those nodes after the run and, if
# a run replaced them (rename over a device or a symlink), restore them when root.
set -u

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
T=$REPO/topologies/tiny.yaml
TIMEOUT=${TOUR_TIMEOUT:-60}
ONLY=${TOUR_ONLY:-}
MEM_BYTES=8589934592

KB_ARG=${1:-./build/kernbench}
if [ -x "$KB_ARG" ] && [ -f "$KB_ARG" ]; then
  KB=$(cd "$(dirname "$KB_ARG")" && pwd)/$(basename "$KB_ARG")
elif [ $# -eq 0 ] && [ -x "$REPO/build/kernbench" ]; then
  KB=$REPO/build/kernbench
else
  echo "bad_input_tour: no executable kernbench at '$KB_ARG'" >&2
  exit 2
fi
[ -f "$T" ] || { echo "bad_input_tour: missing $T" >&2; exit 2; }

IS_ROOT=0
[ "$(id -u)" = 0 ] && IS_ROOT=1

# Memory cap: prlimit when there is one, else ulimit -v in the run's subshell.
LIMIT=()
ULIMIT_KB=""
SANITIZED=0
if grep -aq -m1 '__asan_init' "$KB" 2>/dev/null; then
  SANITIZED=1    # ASan reserves terabytes of address space: no --as cap
elif command -v prlimit >/dev/null 2>&1; then
  LIMIT=(prlimit "--as=$MEM_BYTES" --)
else
  ULIMIT_KB=$((MEM_BYTES / 1024))
fi

TOUR=$(mktemp -d "${TMPDIR:-/tmp}/kb-tour.XXXXXX") || exit 2
FIX=$TOUR/fixtures
CAP=$TOUR/capture
mkdir -p "$FIX" "$CAP"
BG_PID=""
S=""

cleanup() {
  # a run still going (the tour was interrupted): timeout passes TERM on to kernbench
  if [ -n "$BG_PID" ] && kill -TERM "$BG_PID" 2>/dev/null; then
    sleep 2
    kill -KILL "$BG_PID" 2>/dev/null
  fi
  if [ "${TOUR_KEEP:-0}" = 1 ]; then
    echo "scratch kept in $TOUR" >&2
  else
    chmod -R u+rwx "$TOUR" 2>/dev/null
    rm -rf "$TOUR"
  fi
}
trap cleanup EXIT
trap 'echo "bad_input_tour: interrupted" >&2; exit 130' INT TERM HUP

# ---------------------------------------------------------------------------
# Results
declare -a R_CLASS=() R_LINE=()
TSV=${TOUR_TSV:-}
[ -n "$TSV" ] && : >"$TSV"

record() { # CLASS RC EXPECTED NAME DETAIL
  local line
  line=$(printf '%-11s rc=%-3s exp=%-7s %-44s %s' "$1" "$2" "$3" "$4" "$5")
  echo "$line"
  R_CLASS+=("$1")
  R_LINE+=("$line")
  [ -n "$TSV" ] && printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$TSV"
}

skip() { # NAME REASON
  selected "$1" || return 0
  record skip - - "$1" "($2)"
}

selected() { [ -z "$ONLY" ] || printf '%s\n' "$1" | grep -Eq -- "$ONLY"; }

# ---------------------------------------------------------------------------
# Protection: signatures of files before and after a run

sig_of() {
  local p=$1
  if [ -L "$p" ]; then
    printf 'symlink->%s' "$(readlink "$p")"
  elif [ -f "$p" ]; then
    printf 'file:%s' "$(sha256sum <"$p" | cut -c1-16)"
  elif [ -d "$p" ]; then
    printf 'dir:%s' "$(ls -A "$p" | sha256sum | cut -c1-16)"
  elif [ -e "$p" ]; then
    stat -c '%F %t:%T' "$p"
  else
    printf 'absent'
  fi
}

abspath() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$S" "$1" ;; esac; }

declare -a KEEP_P=() KEEP_S=() ABSENT_P=() LOST=()
keep() { # PATH...: must have the same type and content after the run
  local p
  for p; do
    p=$(abspath "$p")
    KEEP_P+=("$p")
    KEEP_S+=("$(sig_of "$p")")
  done
}
absent() { # PATH...: must not exist after the run
  local p
  for p; do ABSENT_P+=("$(abspath "$p")"); done
}
lost() { LOST+=("$*"); }

# System nodes a broken atomic write could replace (rename over a device or symlink).
DEV_NODES=(/dev/null /dev/full /dev/zero /dev/stdout /dev/stderr /dev/stdin)
declare -A DEV_SIG=()
for n in "${DEV_NODES[@]}"; do DEV_SIG[$n]=$(sig_of "$n"); done

restore_dev() {
  local n=$1
  [ "$IS_ROOT" = 1 ] || { echo "bad_input_tour: WARNING: $n damaged, cannot restore (not root)" >&2; return; }
  rm -rf "$n"
  case $n in
    /dev/null) mknod -m 666 /dev/null c 1 3 ;;
    /dev/zero) mknod -m 666 /dev/zero c 1 5 ;;
    /dev/full) mknod -m 666 /dev/full c 1 7 ;;
    /dev/stdin) ln -s /proc/self/fd/0 /dev/stdin ;;
    /dev/stdout) ln -s /proc/self/fd/1 /dev/stdout ;;
    /dev/stderr) ln -s /proc/self/fd/2 /dev/stderr ;;
  esac
}

check_system_nodes() {
  local n f
  for n in "${DEV_NODES[@]}"; do
    if [ "$(sig_of "$n")" != "${DEV_SIG[$n]}" ]; then
      lost "$n replaced ($(sig_of "$n")); restored"
      restore_dev "$n"
    fi
  done
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    lost "left $f"
    rm -rf "$f"
  done < <(find /dev -maxdepth 1 \( -name '*.tmp' -o -name '*.partial*' -o -name '.kb-*' \
                                    -o -name '*.jobs' \) 2>/dev/null)
}

# Processes still running with their cwd in the scratch directory (sweep children).
orphans() {
  local p c
  for p in /proc/[0-9]*; do
    c=$(readlink "$p/cwd" 2>/dev/null) || continue
    case $c in "$S" | "$S"/*) printf '%s\n' "${p#/proc/}" ;; esac
  done
}

# ---------------------------------------------------------------------------
# Running the binary

RC=0
ELAPSED_MS=0
T0=0

kb_start() { # ARGS...: start kernbench in $S in the background (BG_PID)
  T0=$(date +%s%N)
  (
    cd "$S" || exit 97
    [ -n "$ULIMIT_KB" ] && ulimit -v "$ULIMIT_KB"
    exec nice -n 10 timeout -k 10 "$TIMEOUT" ${LIMIT[@]+"${LIMIT[@]}"} "$KB" "$@"
  ) </dev/null >"$CAP/out" 2>"$CAP/err" &
  BG_PID=$!
}

kb_wait() {
  wait "$BG_PID" 2>/dev/null
  RC=$?
  BG_PID=""
  ELAPSED_MS=$((($(date +%s%N) - T0) / 1000000))
}

# exit 126/127 with "failed to execute": the binary is being relinked (someone is
# building); wait for it rather than classify the case
exec_failed() {
  { [ "$RC" = 126 ] || [ "$RC" = 127 ]; } &&
    grep -aqE 'failed to execute|failed to run command|Text file busy|Permission denied|No such file' "$CAP/err" &&
    ! grep -aq '^kernbench: ' "$CAP/err"
}

kb() {
  local try
  for try in $(seq 1 60); do
    kb_start "$@"
    kb_wait
    exec_failed || return 0
    [ "$try" = 1 ] && echo "bad_input_tour: $KB cannot be executed (being rebuilt?); retrying every 5 s" >&2
    sleep 5
  done
}

# A setup run whose outcome is not classified: SETUP_RC.
SETUP_RC=0
kb_setup() { kb "$@"; SETUP_RC=$RC; }

# begin NAME EXPECTED: a fresh scratch directory and fresh checks; 1 if not selected.
CASE=""
EXP=""
NOTE=""
STDOUT_REPORT=""
begin() {
  CASE=$1
  EXP=$2
  selected "$CASE" || return 1
  S=$(mktemp -d "$TOUR/case.XXXXXX")
  KEEP_P=() KEEP_S=() ABSENT_P=() LOST=()
  RC=0
  SETUP_RC=0
  NOTE=""
  STDOUT_REPORT=""
  : >"$CAP/out"
  : >"$CAP/err"
  return 0
}

exp_has() { case "|$EXP|" in *"|$1|"*) return 0 ;; esac; return 1; }

finish() {
  local err=$CAP/err out=$CAP/out first nlines clean=0 class i p now o kbline
  # a sweep's progress line ("\rsweep: 3/8 done, ...") is not an error message
  if grep -aqE '(^|'$'\r'')sweep: [0-9]+/[0-9]+ done' "$err"; then
    tr '\r' '\n' <"$CAP/err" | grep -avE '^sweep: [0-9]+/[0-9]+ done|^ *$' >"$CAP/err.filtered"
    err=$CAP/err.filtered
  fi
  first=$(head -n1 "$err" | tr -d '\r' | cut -c1-160)
  nlines=$(grep -ac '' "$err")
  if [ "$nlines" = 1 ] && [ -n "$first" ] && [ "${first#kernbench: }" != "$first" ] &&
    ! grep -aq $'\r' "$err"; then
    clean=1
  fi
  # a sweep whose points failed reports them in its table on stdout (docs/cli.md); a case
  # may accept that in place of the stderr line (STDOUT_REPORT: a grep -E pattern)
  if [ "$clean" = 0 ] && [ "$nlines" = 0 ] && [ -n "$STDOUT_REPORT" ] &&
    grep -aqE -- "$STDOUT_REPORT" "$out"; then
    clean=1
    first="(no stderr; stdout: $(grep -aE -- "$STDOUT_REPORT" "$out" | head -n1 | cut -c1-100))"
  fi
  # protected files, leftovers, processes
  for i in "${!KEEP_P[@]}"; do
    now=$(sig_of "${KEEP_P[$i]}")
    [ "$now" = "${KEEP_S[$i]}" ] ||
      lost "${KEEP_P[$i]#"$S"/} changed: ${KEEP_S[$i]} -> $now"
  done
  for p in ${ABSENT_P[@]+"${ABSENT_P[@]}"}; do
    { [ -e "$p" ] || [ -L "$p" ]; } && lost "${p#"$S"/} written"
  done
  while IFS= read -r p; do
    [ -n "$p" ] && lost "leftover ${p#"$S"/}"
  done < <(find "$S" -mindepth 1 \( -name '*.tmp' -o -name '*.partial*' -o -name '.kb-*' \) 2>/dev/null
           [ "$RC" != 0 ] && find "$S" -mindepth 1 -name '*.jobs' 2>/dev/null)
  o=$(orphans)
  if [ -n "$o" ]; then
    sleep 1
    o=$(orphans)
    if [ -n "$o" ]; then
      lost "processes still running: $(echo $o)"
      for p in $o; do kill -KILL "$p" 2>/dev/null; done
    fi
  fi
  check_system_nodes

  if grep -aEq 'ERROR: AddressSanitizer|LeakSanitizer|runtime error:|ThreadSanitizer|MemorySanitizer' "$CAP/err" "$out"; then
    class=sanitizer
  elif [ "$RC" = 124 ] || { [ "$RC" -ge 128 ] && [ "$ELAPSED_MS" -ge $((TIMEOUT * 1000)) ]; }; then
    class=hang
  elif [ "$RC" -ge 128 ] && ! exp_has "$RC"; then
    class=crash
  elif [ "${#LOST[@]}" -gt 0 ]; then
    class=lost-file
  elif exp_has "$RC"; then
    if [ "$RC" = 0 ]; then
      class=ok-expected
    elif [ "$clean" = 1 ] || { [ "$RC" -ge 128 ] && [ "$nlines" = 0 ]; }; then
      class=clear-error
    else
      class=unclear
    fi
  elif [ "$RC" = 0 ] || [ "$clean" = 1 ]; then
    class=wrong-code
  else
    class=unclear
  fi
  local detail=$first
  [ "$nlines" -gt 1 ] && detail="$detail [+$((nlines - 1)) more stderr lines]"
  [ "$nlines" = 0 ] && detail="(no stderr)"
  [ "$nlines" = 0 ] && [ "$clean" = 1 ] && detail=$first
  if [ "$nlines" -gt 1 ] && [ "${first#kernbench: }" = "$first" ]; then
    kbline=$(grep -a -m1 '^kernbench: ' "$err" | cut -c1-120)
    [ -n "$kbline" ] && detail="$detail [then: $kbline]"
  fi
  [ "${#LOST[@]}" -gt 0 ] && detail="$detail | $(IFS=';'; echo "${LOST[*]}")"
  [ "$SETUP_RC" != 0 ] && detail="$detail [setup run rc=$SETUP_RC]"
  [ -n "$NOTE" ] && detail="$detail [$NOTE]"
  record "$class" "$RC" "$EXP" "$CASE" "$detail"
  if [ "${TOUR_KEEP:-0}" != 1 ]; then
    chmod -R u+rwx "$S" 2>/dev/null
    rm -rf "$S"
  fi
  S=""
}

# t NAME EXPECTED ARGS...: one run, no setup.
t() {
  local name=$1 exp=$2
  shift 2
  begin "$name" "$exp" || return 0
  kb "$@"
  finish
}

# t_absent NAME EXPECTED FILE ARGS...: one run; FILE (relative to scratch) must not be written.
t_absent() {
  local name=$1 exp=$2 file=$3
  shift 3
  begin "$name" "$exp" || return 0
  absent "$file"
  kb "$@"
  finish
}

# ---------------------------------------------------------------------------
# Fixtures shared by several cases (inputs only; outputs always go to scratch)

LONG300=$(printf 'n%.0s' $(seq 300))
printf '' >"$FIX/empty.yaml"
{
  printf '%*s' 100000 '' | tr ' ' '['
  printf '%*s' 100000 '' | tr ' ' ']'
  echo
} >"$FIX/deep_seq.yaml"
{
  printf '%*s' 100000 '' | sed 's/ /{a: /g'
  printf '1'
  printf '%*s' 100000 '' | tr ' ' '}'
  echo
} >"$FIX/deep_map.yaml"
{
  cat "$T"
  yes '# padding padding padding padding padding padding padding padding padding padd' |
    head -c 20971520
} >"$FIX/big20mb.yaml"
{
  printf 'bench: dma\ntopology: %s\ngrid: {param: {bytes: [4096]}}\n' "$T"
  yes '# padding padding padding padding padding padding padding padding padding padd' |
    head -c 20971520
} >"$FIX/big20mb_spec.yaml"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import random,sys; r=random.Random(1); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(65536)))' >"$FIX/garbage.bin"
else
  head -c 65536 /dev/urandom >"$FIX/garbage.bin"
fi
{ head -n 20 "$T"; printf 'name: a\0b\n'; tail -n +21 "$T"; } >"$FIX/nul.yaml"
{ cat "$T"; printf '\nsip:\n  cubes_x: 2\n'; } >"$FIX/dup_top.yaml"
printf 'name: dup\ncube:\n  pes: 2\n  pes: 4\n' >"$FIX/dup_nested.yaml"
printf 'name: syntax\nsip: [1, 2\ncube:\n  pes: 2\n' >"$FIX/syntax.yaml"
printf 'name: tabs\ncube:\n\tpes: 2\n' >"$FIX/tabs.yaml"
printf 'name: wrongtype\nsip: 5\n' >"$FIX/wrongtype.yaml"
printf 'name: listval\ncube:\n  pes: [1, 2]\n' >"$FIX/listval.yaml"
printf 'name: unknown\nsipp:\n  cubes_x: 2\n' >"$FIX/unknown_key.yaml"
printf 'name: nsips\nsystem:\n  n_sips: 4294967297\n' >"$FIX/nsips_huge.yaml"
printf 'name: overflow\nsip:\n  cubes_x: 99999999999999999999999\n' >"$FIX/int_overflow.yaml"
printf 'name: slowclock\npe:\n  clock_ghz: 3e-12\n' >"$FIX/clock_file.yaml"
{ printf 'name: longkey\ncube:\n  '; printf 'q%.0s' $(seq 2000); printf ': 2\n'; } >"$FIX/long_key.yaml"
{
  printf 'name: longkeymodel\nlayers: 1\nhidden: 64\nheads: 4\nkv_heads: 4\nd_head: 16\n'
  printf 'ffn: 128\nvocab: 100\nnorm_eps: 1e-5\nrope_theta: 10000\ndtype: fp16\n'
  printf 'z%.0s' $(seq 1300); printf ': 1\n'
} >"$FIX/long_key_model.yaml"
printf 'hello\n' >"$FIX/scalar_root.yaml"
printf -- '- 1\n- 2\n' >"$FIX/seq_root.yaml"
{ sed '/^name:/d' "$T"; printf 'name: "bad\xff\xfeutf8"\n'; } >"$FIX/badutf8_name.yaml"
sed 's/$/\r/' "$T" >"$FIX/crlf.yaml"
{ printf '\xef\xbb\xbf'; cat "$T"; } >"$FIX/bom.yaml"
{
  echo 'name: laughs'
  echo 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
  prev=a
  for x in b c d e f g h i; do
    printf '%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n' $x $x $prev $prev $prev $prev $prev $prev $prev $prev $prev
    prev=$x
  done
} >"$FIX/laughs.yaml"

DMA=(--topology "$T" --bench dma)  # no --param here: a case adds its own, and a repeat is an error
OUTB=(--topology "$T" --bench gemm --param K=256)
UNMAPPED=0x5000000000000000

# Sweep spec writers (into the current case's scratch directory).
spec_dma() { # FILE BYTES [extra YAML lines]
  local f=$1 bytes=$2
  shift 2
  {
    echo "bench: dma"
    echo "topology: $T"
    echo "param: [src=hbm:0.0.0+0, dst=tcm:0.0.0+0]"
    echo "grid:"
    echo "  param: {bytes: [$bytes]}"
    echo "columns: [latency_ns, bandwidth_gbps]"
    for l; do echo "$l"; done
  } >"$S/$f"
}

KB_STAMP=$(stat -c '%y %s' "$KB" 2>/dev/null)
echo "bad_input_tour: $KB (modified ${KB_STAMP% *})"
# Run a snapshot, so that a build relinking the binary mid-tour cannot mix two builds
# (TOUR_SNAPSHOT=0 runs the binary in place). A copy taken while the linker writes is
# caught by running --help on it.
if [ "${TOUR_SNAPSHOT:-1}" = 1 ]; then
  for try in $(seq 1 60); do
    if cp "$KB" "$TOUR/kernbench" 2>/dev/null && "$TOUR/kernbench" --help >/dev/null 2>&1; then
      KB_ORIG=$KB
      KB=$TOUR/kernbench
      echo "bad_input_tour: running a snapshot of it: $KB"
      break
    fi
    sleep 5
  done
fi
KB_ORIG=${KB_ORIG:-$KB}
echo "bad_input_tour: topology $T, timeout ${TIMEOUT}s, memory cap $([ -n "${LIMIT[*]:-}" ] && echo "prlimit --as=$MEM_BYTES" || { [ -n "$ULIMIT_KB" ] && echo "ulimit -v $ULIMIT_KB"; } || echo none)$([ "$SANITIZED" = 1 ] && echo ' (sanitizer build)'), root=$IS_ROOT"
echo

# ===========================================================================
# 0. Baselines: if these fail, the rest of the tour says little.
t base-dma-json 0 "${DMA[@]}" --json ok.json
t base-check-topology 0 --topology "$T" --check-topology
t base-describe-topology 0 --describe-topology
t base-list-benches 0 --list-benches

# ===========================================================================
# 1. Output paths: --json / --oplog / --trace / --vcd (a small GEMM: its op log is not empty)
for f in json oplog trace vcd; do
  t "out-$f-dot" 2 "${OUTB[@]}" "--$f" .
  t "out-$f-proc" 2 "${OUTB[@]}" "--$f" /proc/x
  t "out-$f-nodir" 2 "${OUTB[@]}" "--$f" nodir/out.file
  t "out-$f-300-chars" 2 "${OUTB[@]}" "--$f" "$LONG300"

  # a char device made in scratch (1,3 = /dev/null's numbers): writing into it is
  # allowed (0) or refused cleanly (2); either way it stays a char device
  if [ "$IS_ROOT" = 1 ]; then
    if begin "out-$f-chardev" "0|2"; then
      mknod "$S/cdev" c 1 3
      keep cdev
      kb "${OUTB[@]}" "--$f" cdev
      finish
    fi
  else
    skip "out-$f-chardev" "mknod needs root"
  fi

  # a FIFO: refused (2), not blocked on, still a FIFO
  if begin "out-$f-fifo" 2; then
    mkfifo "$S/fifo"
    keep fifo
    kb "${OUTB[@]}" "--$f" fifo
    finish
  fi

  # a symlink to a directory: refused (2), the link and the directory untouched
  if begin "out-$f-symlink-to-dir" 2; then
    mkdir "$S/realdir"
    ln -s realdir "$S/linkdir"
    keep linkdir realdir
    kb "${OUTB[@]}" "--$f" linkdir
    finish
  fi

  # /dev/full: non-zero (an output error: 2), and /dev/full stays a char device
  if begin "out-$f-dev-full" 2; then
    keep /dev/full
    kb "${OUTB[@]}" "--$f" /dev/full
    [ -c /dev/full ] || lost "/dev/full is no longer a char device"
    finish
  fi
done

t out-json-sys 2 "${OUTB[@]}" --json /sys/x
t out-vcd-sys 2 "${OUTB[@]}" --vcd /sys/x
if begin out-json-existing-dir-slash 2; then
  mkdir "$S/sub"
  keep sub
  kb "${OUTB[@]}" --json sub/
  finish
fi
if begin out-json-trailing-slash-file 2; then
  absent res.json
  kb "${OUTB[@]}" --json res.json/
  finish
fi
if [ "$IS_ROOT" = 1 ]; then
  skip out-json-readonly-dir "root bypasses directory permissions"
  skip out-vcd-readonly-dir "root bypasses directory permissions"
else
  for f in json vcd; do
    if begin "out-$f-readonly-dir" 2; then
      mkdir "$S/ro"
      chmod 555 "$S/ro"
      kb "${OUTB[@]}" "--$f" ro/x
      finish
    fi
  done
fi

# --json /dev/stdout: writing the result into stdout is allowed (0); the JSON must
# arrive on stdout and /dev/stdout must still be the symlink it was
if begin out-json-dev-stdout 0; then
  kb "${DMA[@]}" --quiet --json /dev/stdout
  grep -q '"bench"' "$CAP/out" || lost "JSON not on stdout"
  finish
fi

# --out
t out-dir-proc 2 "${DMA[@]}" --out /proc/x
t out-dir-300-chars 2 "${DMA[@]}" --out "$LONG300"
if begin out-dir-is-a-file 2; then
  echo KNOWN >"$S/res"
  keep res
  kb "${DMA[@]}" --out res
  finish
fi

# a refused or failed run leaves no --out directory it made
t_absent out-dir-of-a-refused-run 2 res "${DMA[@]}" --out res --oplog res/dma.json
t_absent out-dir-of-a-faulting-run 3 res "${DMA[@]}" --out res --param dst=$UNMAPPED

# two outputs on one path
t_absent same-path-json-oplog 2 x "${DMA[@]}" --json x --oplog x
t_absent same-path-json-trace 2 x "${DMA[@]}" --json x --trace x
t_absent same-path-oplog-trace 2 x "${DMA[@]}" --oplog x --trace x
t_absent same-path-json-vcd 2 x "${DMA[@]}" --json x --vcd x
t_absent same-path-json-dotslash-oplog 2 x "${DMA[@]}" --json x --oplog ./x
t_absent same-path-out-json-oplog 2 res/dma.json "${DMA[@]}" --out res --oplog res/dma.json

# a bad output path is found before simulating: the good output is not written
t_absent bad-oplog-good-json-new 2 ok.json "${DMA[@]}" --oplog . --json ok.json
if begin bad-oplog-good-json-kept 2; then
  echo KNOWN >"$S/ok.json"
  keep ok.json
  kb "${DMA[@]}" --oplog . --json ok.json
  finish
fi
t_absent bad-json-good-oplog-new 2 ok.jsonl "${DMA[@]}" --json . --oplog ok.jsonl
if begin bad-trace-good-json-kept 2; then
  echo KNOWN >"$S/ok.json"
  keep ok.json
  kb "${DMA[@]}" --trace /proc/x --json ok.json
  finish
fi
t_absent bad-vcd-proc-good-json-new 2 ok.json "${DMA[@]}" --vcd /proc/x --json ok.json
t_absent bad-json-nodir-good-oplog-new 2 ok.jsonl "${DMA[@]}" --json nodir/x --oplog ok.jsonl
t_absent bad-json-devfull-good-trace-new 2 ok.trace "${OUTB[@]}" --json /dev/full --trace ok.trace

# an earlier good result survives a failed run on the same path
if begin good-json-then-bad-param 2; then
  kb_setup "${DMA[@]}" --json good.json
  [ -f "$S/good.json" ] || echo KNOWN >"$S/good.json"
  keep good.json
  kb "${DMA[@]}" --json good.json --param bytez=4096
  finish
fi
if begin good-json-then-bad-set 2; then
  kb_setup "${DMA[@]}" --json good.json
  [ -f "$S/good.json" ] || echo KNOWN >"$S/good.json"
  keep good.json
  kb "${DMA[@]}" --json good.json --set cube.pes=0
  finish
fi
if begin good-json-then-sim-fault 3; then
  kb_setup "${DMA[@]}" --json good.json
  [ -f "$S/good.json" ] || echo KNOWN >"$S/good.json"
  keep good.json
  kb "${DMA[@]}" --json good.json --param dst=$UNMAPPED
  finish
fi
if begin good-vcd-then-sim-fault 3; then
  kb_setup "${DMA[@]}" --vcd good.vcd
  [ -f "$S/good.vcd" ] || echo KNOWN >"$S/good.vcd"
  keep good.vcd
  kb "${DMA[@]}" --vcd good.vcd --param dst=$UNMAPPED
  finish
fi
if begin good-oplog-then-bad-param 2; then
  kb_setup "${DMA[@]}" --oplog good.jsonl
  [ -f "$S/good.jsonl" ] || echo KNOWN >"$S/good.jsonl"
  keep good.jsonl
  kb "${DMA[@]}" --oplog good.jsonl --param rows=0
  finish
fi
if begin good-out-then-sim-fault 3; then
  kb_setup "${DMA[@]}" --out res
  [ -f "$S/res/dma.json" ] || { mkdir -p "$S/res"; echo KNOWN >"$S/res/dma.json"; }
  keep res/dma.json
  kb "${DMA[@]}" --out res --param src=$UNMAPPED
  finish
fi

# sweep outputs: --emit-jobs / --emit-slurm
if begin emit-slurm-dot 2; then
  spec_dma a.yaml 4096
  absent ..jobs
  kb --sweep a.yaml --out out --emit-slurm .
  finish
fi
if begin emit-jobs-dot 2; then
  spec_dma a.yaml 4096
  kb --sweep a.yaml --out out --emit-jobs .
  finish
fi
if begin emit-jobs-proc 2; then
  spec_dma a.yaml 4096
  kb --sweep a.yaml --out out --emit-jobs /proc/x
  finish
fi
if begin emit-slurm-nodir 2; then
  spec_dma a.yaml 4096
  absent nodir
  kb --sweep a.yaml --out out --emit-slurm nodir/x
  finish
fi
if begin emit-slurm-proc 2; then
  spec_dma a.yaml 4096
  kb --sweep a.yaml --out out --emit-slurm /proc/x
  finish
fi
if begin emit-jobs-fifo 2; then
  spec_dma a.yaml 4096
  mkfifo "$S/fifo"
  keep fifo
  kb --sweep a.yaml --out out --emit-jobs fifo
  finish
fi
if begin emit-jobs-and-slurm 2; then
  spec_dma a.yaml 4096
  absent j.txt s.sh
  kb --sweep a.yaml --out out --emit-jobs j.txt --emit-slurm s.sh
  finish
fi
if begin emit-jobs-and-merge 2; then
  spec_dma a.yaml 4096
  absent j.txt
  kb --sweep a.yaml --out out --emit-jobs j.txt --merge
  finish
fi
if begin emit-jobs-ok 0; then
  spec_dma a.yaml 4096
  kb --sweep a.yaml --out out --emit-jobs j.txt
  [ -s "$S/j.txt" ] || lost "j.txt not written"
  finish
fi
if begin emit-slurm-ok 0; then
  spec_dma a.yaml 4096
  kb --sweep a.yaml --out out --emit-slurm s.sh
  { [ -s "$S/s.sh" ] && [ -s "$S/s.sh.jobs" ]; } || lost "s.sh or s.sh.jobs not written"
  finish
fi
t_absent emit-jobs-without-sweep 2 j.txt "${DMA[@]}" --emit-jobs j.txt

# ===========================================================================
# 2. Sizes and bench parameters
G=(--topology "$T" --bench gemm)
t gemm-4G-cube 2 "${G[@]}" --param M=4294967296 --param K=4294967296 --param N=4294967296 --param variant=ref_ref
t gemm-K-4G 2 "${G[@]}" --param M=32 --param K=4294967296 --param N=32 --param variant=ref_ref
t gemm-M-2pow64 2 "${G[@]}" --param M=18446744073709551616
t gemm-M-0 2 "${G[@]}" --param M=0
t gemm-K-0 2 "${G[@]}" --param K=0
t gemm-N-negative 2 "${G[@]}" --param N=-32
t gemm-M-abc 2 "${G[@]}" --param M=abc
t gemm-M-empty 2 "${G[@]}" --param M=
t gemm-M-fraction 2 "${G[@]}" --param M=32.5
t gemm-variant-typo 2 "${G[@]}" --param variant=load_reff
# load_load of 512x2048x512 fp16 (4.5 MiB of operands) cannot be pre-loaded into a 1 MiB TCM:
# refused up front (2) or a clean fault (3)
t gemm-load-load-exceeds-tcm "2|3" "${G[@]}" --param M=512 --param K=2048 --param N=512 --param variant=load_load
GS=(--topology "$T" --bench gemm-sweep)
t gemm-sweep-4G-cube 2 "${GS[@]}" --param shapes=4294967296x4294967296x4294967296 --param variants=ref_ref
t gemm-sweep-two-dims 2 "${GS[@]}" --param shapes=32x64
t gemm-sweep-four-dims 2 "${GS[@]}" --param shapes=32x64x32x9
t gemm-sweep-zero-dim 2 "${GS[@]}" --param shapes=0x64x32
t gemm-sweep-empty-list-item 2 "${GS[@]}" --param shapes=32x64x32,,32x64x32
t gemm-sweep-empty 2 "${GS[@]}" --param shapes=
t gemm-sweep-variant-typo 2 "${GS[@]}" --param shapes=32x64x32 --param variants=foo
t gemm-sweep-gemm-param 2 "${GS[@]}" --param M=4294967296
t gemm-strategies-4G 2 --topology "$T" --bench gemm-strategies --param shapes=4294967296x64x32 --param variants=ref_ref --param strategies=composite
t gemm-strategies-typo 2 --topology "$T" --bench gemm-strategies --param shapes=32x64x32 --param strategies=async-ful

t dma-bytes-0 2 "${DMA[@]}" --param bytes=0
t dma-bytes-negative 2 "${DMA[@]}" --param bytes=-1
t dma-bytes-abc 2 "${DMA[@]}" --param bytes=abc
t dma-bytes-overflow 2 "${DMA[@]}" --param bytes=99999999999999999999999
t dma-bytes-fraction-unit 2 "${DMA[@]}" --param bytes=1.5KiB
t dma-bytes-unit-typo 2 "${DMA[@]}" --param bytes=4KiBB
# more bytes than the 1 MiB TCM / the 64 MiB HBM: refused up front (2) or a fault (3)
t dma-bytes-1TiB "2|3" "${DMA[@]}" --param bytes=1TiB
t dma-bytes-u64max "2|3" "${DMA[@]}" --param bytes=18446744073709551615
t dma-bytes-2MiB-into-1MiB-tcm "2|3" "${DMA[@]}" --param bytes=2MiB
# units where sizes are accepted: success
t dma-bytes-unit-4KiB 0 --topology "$T" --bench dma --param bytes=4KiB
t dma-bytes-unit-2MiB-hbm-to-hbm 0 --topology "$T" --bench dma --param src=hbm:0.0.0+0 --param dst=hbm:0.1.0+0 --param bytes=2MiB
t dma-src-offset-unit-1MiB 0 "${DMA[@]}" --param src=hbm:0.0.0+1MiB
t dma-rows-0 2 "${DMA[@]}" --param rows=0
t dma-rows-negative 2 "${DMA[@]}" --param rows=-1
t dma-rows-4G "2|3" "${DMA[@]}" --param rows=4294967296
t dma-rows-u64max "2|3" "${DMA[@]}" --param rows=18446744073709551615
# rows x bytes = 2^64: wraps to 0 in 64-bit arithmetic
t dma-rows-times-bytes-wraps "2|3" --topology "$T" --bench dma --param rows=4294967296 --param bytes=4294967296
t dma-src-stride-u64max "2|3" "${DMA[@]}" --param rows=2 --param src_stride=18446744073709551615
t dma-dst-stride-1TiB "2|3" "${DMA[@]}" --param rows=2 --param dst_stride=1TiB
t dma-stride-negative 2 "${DMA[@]}" --param rows=2 --param src_stride=-4096
t dma-addr-garbage 2 "${DMA[@]}" --param src=foo
t dma-addr-empty 2 "${DMA[@]}" --param src=
t dma-addr-empty-offset 2 "${DMA[@]}" --param src=hbm:0.0.0+
t dma-addr-negative-offset 2 "${DMA[@]}" --param src=hbm:0.0.0+-5
t dma-addr-offset-overflow 2 "${DMA[@]}" --param src=hbm:0.0.0+99999999999999999999
t dma-addr-hex-overflow 2 "${DMA[@]}" --param src=0x10000000000000000
t dma-addr-missing-fields 2 "${DMA[@]}" --param src=hbm:0+0
# a PE / SIP the topology lacks: the address names no memory (2 up front, or a fault 3)
t dma-dst-nonexistent-pe "2|3" "${DMA[@]}" --param dst=tcm:0.0.9+0
t dma-src-nonexistent-sip "2|3" "${DMA[@]}" --param src=hbm:5.0.0+0
t dma-src-past-hbm-end "2|3" "${DMA[@]}" --param src=hbm:0.0.0+67108864
t dma-dst-host-past-end "2|3" "${DMA[@]}" --param dst=host+1TiB
t dma-dst-sram-past-end "2|3" "${DMA[@]}" --param dst=sram:0.0+8MiB
t dma-pe-nonexistent 2 "${DMA[@]}" --param pe=0.0.9
t dma-pe-garbage 2 "${DMA[@]}" --param pe=abc
t dma-pe-huge 2 "${DMA[@]}" --param pe=4294967296.0.0

QD=(--topology "$T" --bench gqa-decode)
t gqa-decode-S_kv-4G 2 "${QD[@]}" --param S_kv=4294967296
t gqa-decode-S_kv-0 2 "${QD[@]}" --param S_kv=0
t gqa-decode-S_kv-ragged 0 "${QD[@]}" --param S_kv=100
t gqa-decode-S_kv-negative 2 "${QD[@]}" --param S_kv=-64
t gqa-decode-tile-0 2 "${QD[@]}" --param S_kv=256 --param tile=0
t gqa-decode-tile-4G 2 "${QD[@]}" --param S_kv=256 --param tile=4294967296
t gqa-decode-heads-0 2 "${QD[@]}" --param S_kv=256 --param heads=0
t gqa-decode-kv_heads-0 2 "${QD[@]}" --param S_kv=256 --param kv_heads=0
t gqa-decode-heads-not-divisible 2 "${QD[@]}" --param S_kv=256 --param heads=7
t gqa-decode-d_head-0 2 "${QD[@]}" --param S_kv=256 --param d_head=0
t gqa-decode-d_head-4G 2 "${QD[@]}" --param S_kv=256 --param d_head=4294967296
t gqa-decode-variant-typo 2 "${QD[@]}" --param S_kv=256 --param variant=opt9
t gqa-decode-variant-empty-item 2 "${QD[@]}" --param S_kv=256 --param variant=opt1,,opt2
t gqa-decode-score_std-abc 2 "${QD[@]}" --param S_kv=256 --param score_std=abc
QL=(--topology "$T" --bench gqa-long --param kv_heads=1 --param heads=8)
t gqa-long-S_kv-4G 2 "${QL[@]}" --param S_kv=4294967296
t gqa-long-case-5 2 "${QL[@]}" --param S_kv=1024 --param case=5
t gqa-long-C-3 2 "${QL[@]}" --param S_kv=1024 --param C=3
t gqa-long-P-99 2 "${QL[@]}" --param S_kv=1024 --param P=99
t gqa-long-kv_heads-0 2 --topology "$T" --bench gqa-long --param kv_heads=0 --param S_kv=1024
t gqa-long-groups-out-of-range 2 "${QL[@]}" --param S_kv=1024 --param groups=99
t gqa-long-kv_layout-typo 2 "${QL[@]}" --param S_kv=1024 --param kv_layout=tiledd
t gqa-long-tile-0 2 "${QL[@]}" --param S_kv=1024 --param tile=0
QP=(--topology "$T" --bench gqa-prefill --param C=4)
t gqa-prefill-S-4G 2 "${QP[@]}" --param S=4294967296
t gqa-prefill-T_q-0 2 "${QP[@]}" --param S=1024 --param T_q=0
t gqa-prefill-C-too-many 2 --topology "$T" --bench gqa-prefill --param S=1024 --param C=8
t gqa-prefill-tile-0 2 "${QP[@]}" --param S=1024 --param tile=0
QS=(--topology "$T" --bench gqa-short --param kv_heads=4 --param heads=32)
t gqa-short-kv_per_cube-0 2 "${QS[@]}" --param S_kv=256 --param kv_per_cube=0
t gqa-short-S_kv-4G 2 "${QS[@]}" --param S_kv=4294967296 --param kv_per_cube=1

AR=(--topology "$T" --bench allreduce --param algo=ring)
# documented: sizes that do not fit the buffer are reported as skipped (exit 0); 1 TiB
# may instead meet a size cap (a clean 2)
t allreduce-bytes_per_pe-4MiB-tcm-skipped 0 "${AR[@]}" --param bytes_per_pe=4MiB
t allreduce-bytes_per_pe-1TiB "0|2" "${AR[@]}" --param bytes_per_pe=1TiB
t allreduce-bytes_per_pe-16EiB 2 "${AR[@]}" --param bytes_per_pe=16EiB
t allreduce-bytes_per_pe-0 2 "${AR[@]}" --param bytes_per_pe=0
t allreduce-bytes_per_pe-negative 2 "${AR[@]}" --param bytes_per_pe=-4KiB
t allreduce-bytes_per_pe-empty-item 2 "${AR[@]}" --param bytes_per_pe=4KiB,,8KiB

LM=(--topology "$T" --bench llm --param model=llama3_8b --param model.layers=2 --param model.hidden=120
    --param model.heads=6 --param model.kv_heads=3 --param model.d_head=20 --param model.ffn=200
    --param model.vocab=250 --param ranks=6)
t llm-small-ragged-data 0 "${LM[@]}" --data --param batch=3 --param context=37
t llm-context-below-group 2 "${LM[@]}" --param context=0
t llm-does-not-fit-hbm 2 "${LM[@]}" --param batch=4000 --param context=1000000
t llm-70b-on-tiny 2 --topology "$T" --bench llm
t llm-ranks-more-than-pes 2 --topology "$T" --bench llm --param model=llama3_8b --param ranks=9
t llm-batch-0 2 "${LM[@]}" --param batch=0
t llm-batch-4G 2 "${LM[@]}" --param batch=4294967296
t llm-context-negative 2 "${LM[@]}" --param context=-1
t llm-tile-0 2 "${LM[@]}" --param tile=0
t llm-layers-too-many 2 "${LM[@]}" --param layers=3
t llm-phase-typo 2 "${LM[@]}" --param phase=decod
t llm-mapping-typo 2 "${LM[@]}" --param mapping=ppp
t llm-prefill-small-ragged-data 0 "${LM[@]}" --data --param phase=prefill --param prompt=23 --param batch=2
t llm-prefill-prompt-0 2 "${LM[@]}" --param phase=prefill --param prompt=0
t llm-prefill-prompt-below-group 2 "${LM[@]}" --param phase=prefill --param prompt=1
t llm-pp-prefill-two-sips-data 0 "${LM[@]}" --set system.n_sips=2 --param mapping=pp --data --param phase=prefill --param prompt=23
t llm-pp-stages-do-not-divide 2 "${LM[@]}" --param mapping=pp --param stages=4
t llm-pp-micro-batches-over-batch 2 "${LM[@]}" --param mapping=pp --param micro_batches=5 --param batch=2
# a parameter of the other phase or mapping is refused, not recorded and ignored
t llm-prompt-in-decode 2 "${LM[@]}" --param prompt=31
t llm-context-in-prefill 2 "${LM[@]}" --param phase=prefill --param prompt=23 --param context=500
t llm-stages-with-tp 2 "${LM[@]}" --param stages=3
t llm-micro-batches-with-explicit-tp 2 "${LM[@]}" --param mapping=tp --param micro_batches=2
t llm-model-name-with-newline 2 "${LM[@]}" --param $'model.name=x\ny'
t llm-model-vocab-past-64-bits 2 "${LM[@]/model.vocab=250/model.vocab=123456789012345678901234567}"
t llm-model-eps-below-a-double 2 "${LM[@]}" --param model.norm_eps=2e-330
t llm-model-theta-past-a-double 2 "${LM[@]}" --param model.rope_theta=9e999
t llm-model-key-over-1024 2 --topology "$T" --bench llm --param model="$FIX/long_key_model.yaml"
t param-with-a-carriage-return 2 "${DMA[@]}" --param $'dst=tcm:0.0.0+0\r'
t llm-allreduce-typo 2 "${LM[@]}" --param allreduce=ring
t llm-allreduce-hierarchical-not-whole-cubes 2 "${LM[@]/ranks=6/ranks=3}" --param allreduce=hierarchical
t llm-allreduce-halving-three-cubes 2 "${LM[@]}" --param allreduce=halving
t llm-variant-typo 2 "${LM[@]}" --param variant=opt4
t llm-model-missing-file 2 --topology "$T" --bench llm --param model=/nonexistent/m.yaml
t llm-model-dev-zero 2 --topology "$T" --bench llm --param model=/dev/zero
t llm-model-field-typo 2 --topology "$T" --bench llm --param model.hiden=64
t llm-model-heads-not-divisible 2 --topology "$T" --bench llm --param model=llama3_8b --param model.heads=7
t llm-model-d_head-odd 2 --topology "$T" --bench llm --param model=llama3_8b --param model.d_head=127
t llm-model-hidden-huge 2 --topology "$T" --bench llm --param model=llama3_8b --param model.hidden=99999999999
t llm-model-eps-nan 2 --topology "$T" --bench llm --param model=llama3_8b --param model.norm_eps=nan
t llm-model-dtype-typo 2 --topology "$T" --bench llm --param model=llama3_8b --param model.dtype=fp8
t allreduce-bytes_per_pe-trailing-comma 2 "${AR[@]}" --param bytes_per_pe=4KiB,
t allreduce-algo-typo 2 --topology "$T" --bench allreduce --param algo=rnig --param bytes_per_pe=4KiB
t allreduce-buffer-typo 2 "${AR[@]}" --param bytes_per_pe=4KiB --param buffer=dram
t allreduce-pes_per_cube-0 2 "${AR[@]}" --param bytes_per_pe=4KiB --param pes_per_cube=0
t allreduce-pes_per_cube-65 2 "${AR[@]}" --param bytes_per_pe=4KiB --param pes_per_cube=65
t allreduce-sip-missing 2 "${AR[@]}" --param bytes_per_pe=4KiB --param sip=1
t ccl-sweep-topology-typo 2 --topology "$T" --bench ccl-sweep --param algo=ring --param buffer=tcm --param bytes_per_pe=4KiB --param topologies=hypercube
t ccl-sweep-jobs-0 2 --topology "$T" --bench ccl-sweep --param algo=ring --param buffer=tcm --param bytes_per_pe=4KiB --param topologies=ring --param jobs=0

MB=(--topology "$T" --bench math)
t math-ops-foo 2 "${MB[@]}" --param ops=foo
t math-ops-empty 2 "${MB[@]}" --param ops=
t math-ops-empty-item 2 "${MB[@]}" --param ops=add,,mul
t math-elements-0 2 "${MB[@]}" --param elements=0
t math-elements-negative 2 "${MB[@]}" --param elements=-1
t math-elements-4G "2|3" "${MB[@]}" --param elements=4294967296
t math-pe-nonexistent 2 "${MB[@]}" --param pe=0.0.9
# documented: an op kind the RTL lacks on an RTL PE is a simulation fault (exit 3)
t math-rtl-unsupported-op 3 "${MB[@]}" --set pe.math.impl=rtl --param ops=exp --param elements=256
PR=(--topology "$T" --bench probe --param contention=0)
t probe-sizes-0 2 "${PR[@]}" --param sizes=0
t probe-sizes-abc 2 "${PR[@]}" --param sizes=abc
t probe-sizes-empty-item 2 "${PR[@]}" --param sizes=4KiB,,8KiB
t probe-sizes-1TiB "2|3" "${PR[@]}" --param sizes=1TiB
t probe-contention-2 2 --topology "$T" --bench probe --param sizes=4096 --param contention=2

# ===========================================================================
# 3. Topology knobs via --set
CT=(--topology "$T" --check-topology)
GQ256=(--topology "$T" --bench gqa-decode --param S_kv=256)
# a stack too small for the kernel: refused up front (2) or a clean fault (3), never SIGSEGV
t set-stack-12KiB "2|3" "${GQ256[@]}" --set pe.cpu.stack_bytes=12KiB
# below two pages (plus SystemC's guard) no thread can start: a configuration error
t set-stack-1KiB 2 "${GQ256[@]}" --set pe.cpu.stack_bytes=1KiB
t set-stack-16 2 "${GQ256[@]}" --set pe.cpu.stack_bytes=16
t set-stack-0 2 "${GQ256[@]}" --set pe.cpu.stack_bytes=0
t set-stack-1TiB 2 "${GQ256[@]}" --set pe.cpu.stack_bytes=1TiB
t set-pes-4294967297 2 "${CT[@]}" --set cube.pes=4294967297
t set-pes-0 2 "${CT[@]}" --set cube.pes=0
t set-pes-65 2 "${CT[@]}" --set cube.pes=65
t set-pes-negative 2 "${CT[@]}" --set cube.pes=-1
t set-pes-fraction 2 "${CT[@]}" --set cube.pes=2.5
t set-pes-abc 2 "${CT[@]}" --set cube.pes=abc
t set-pes-empty 2 "${CT[@]}" --set cube.pes=
t set-pes-with-unit 2 "${CT[@]}" --set cube.pes=2KiB
t set-pes-newline 2 "${CT[@]}" --set $'cube.pes=2\n3'
t set-key-typo 2 "${CT[@]}" --set pe.hbm.num_pc=4
t set-section-typo 2 "${CT[@]}" --set pe.hbmm.num_pcs=4
t set-section-as-key 2 "${CT[@]}" --set pe.hbm=4
t set-no-equals 2 "${CT[@]}" --set cube.pes
t set-empty-key 2 "${CT[@]}" --set =4
t set-budget-16x16x64 2 "${CT[@]}" --set sip.cubes_x=16 --set sip.cubes_y=16 --set cube.pes=64
t set-cubes_x-0 2 "${CT[@]}" --set sip.cubes_x=0
t set-cubes_x-4G 2 "${CT[@]}" --set sip.cubes_x=4294967296
t set-n_sips-0 2 "${CT[@]}" --set system.n_sips=0
t set-n_sips-65 2 "${CT[@]}" --set system.n_sips=65
t set-host_sip-missing 2 "${CT[@]}" --set system.host_sip=5
t set-sip_topology-typo 2 "${CT[@]}" --set system.sip_topology=star
t set-topology-typo 2 "${CT[@]}" --set sip.topology=hypercube
t set-io_cube-missing 2 "${CT[@]}" --set sip.io_cube=99
t set-bw-negative 2 "${CT[@]}" --set sip.cube_link.bandwidth_gbps=-64
t set-bw-zero 2 "${CT[@]}" --set sip.cube_link.bandwidth_gbps=0
t set-bw-nan 2 "${CT[@]}" --set sip.cube_link.bandwidth_gbps=nan
t set-bw-inf 2 "${CT[@]}" --set sip.cube_link.bandwidth_gbps=inf
t set-bw-1e309 2 "${CT[@]}" --set sip.cube_link.bandwidth_gbps=1e309
t set-bw-empty 2 "${CT[@]}" --set sip.cube_link.bandwidth_gbps=
t set-bw-with-unit 2 "${CT[@]}" --set sip.cube_link.bandwidth_gbps=64GB/s
# 1e-300 GB/s: a 4 KiB transfer would take ~1e303 ns; refused (2) or a clean fault (3)
t set-bw-1e-300 "2|3" "${DMA[@]}" --set cube.pe_link.bandwidth_gbps=1e-300 --param dst=tcm:0.1.0+0
t set-latency-negative 2 "${CT[@]}" --set cube.router_latency_ns=-5
t set-latency-nan 2 "${CT[@]}" --set cube.router_latency_ns=nan
t set-latency-1e30 "2|3" "${DMA[@]}" --set cube.pe_link.latency_ns=1e30 --param dst=tcm:0.1.0+0
t set-clock-0 2 "${CT[@]}" --set pe.clock_ghz=0
t set-clock-negative 2 "${CT[@]}" --set pe.clock_ghz=-1
t set-clock-nan 2 "${CT[@]}" --set pe.clock_ghz=nan
t set-num_pcs-0 2 "${CT[@]}" --set pe.hbm.num_pcs=0
t set-num_pcs-3 2 "${CT[@]}" --set pe.hbm.num_pcs=3
t set-interleave-1000 2 "${CT[@]}" --set pe.hbm.interleave_bytes=1000
t set-interleave-0 2 "${CT[@]}" --set pe.hbm.interleave_bytes=0
t set-hbm-size-0 2 "${CT[@]}" --set pe.hbm.size_bytes=0
t set-hbm-size-1EiB 2 "${CT[@]}" --set pe.hbm.size_bytes=1EiB
t set-queue_depth-negative 2 "${CT[@]}" --set pe.hbm.queue_depth=-1
t set-pc_mapping-typo 2 "${CT[@]}" --set pe.hbm.pc_mapping=xorr
t set-burst-0 2 "${DMA[@]}" --set pe.dma.burst_bytes=0
t set-max_outstanding-0 2 "${DMA[@]}" --set pe.dma.max_outstanding=0
t set-tcm-size-0 2 "${DMA[@]}" --set pe.tcm.size_bytes=0
t set-host-memory-0 2 "${CT[@]}" --set host.memory_bytes=0
t set-h2d-packet-0 2 "${CT[@]}" --set host.h2d.packet_bytes=0
t set-d2h-faster-than-h2d 2 "${CT[@]}" --set host.d2h.bandwidth_gbps=128
t set-staging-0 2 --topology "$T" --bench gemm --param K=256 --set pe.scheduler.staging_buffers=0
t set-tile_m-0 2 --topology "$T" --bench gemm --param K=256 --set pe.gemm.tile_m=0
t set-peak_tflops-0 2 --topology "$T" --bench gemm --param K=256 --set pe.gemm.peak_tflops=0
t set-lanes-0 2 "${MB[@]}" --set pe.math.lanes=0
t set-math-impl-typo 2 "${CT[@]}" --set pe.math.impl=verilog
t set-rtl_pes-missing-pe 2 "${CT[@]}" --set pe.math.impl=rtl --set pe.math.rtl_pes=9.9.9
t set-per_byte_cycles-nan 2 "${CT[@]}" --set pe.cost_model.per_byte_cycles=nan
# every composite over 1 logical byte is rejected at issue: refused (2) or a clean fault (3)
t set-max-composite-1 "2|3" --topology "$T" --bench gemm --param K=256 --set pe.cost_model.max_composite_logical_bytes=1
t set-ipcq-slot_bytes-0 2 "${AR[@]}" --param bytes_per_pe=4KiB --set pe.ipcq.slot_bytes=0
t set-ipcq-slots-0 2 "${AR[@]}" --param bytes_per_pe=4KiB --set pe.ipcq.slots=0
t set-ipcq-ring-larger-than-tcm 2 "${AR[@]}" --param bytes_per_pe=4KiB --set pe.ipcq.ring_bytes=1GiB
t set-ipcq-message-0 2 "${CT[@]}" --set pe.ipcq.message_bytes=0
# every knob that becomes simulated time has a range: out of it (or past a double) is
# "out of range [lo, hi]", never a saturated or zero time
t set-clock-below-range 2 "${DMA[@]}" --set pe.clock_ghz=2e-6
t set-clock-above-range 2 "${DMA[@]}" --set pe.clock_ghz=4e3
t set-composite-cycles-huge 2 --topology "$T" --bench gemm --param K=256 --set pe.cost_model.fixed_per_composite_cycles=9e15
t set-per-byte-cycles-huge 2 "${DMA[@]}" --set pe.cost_model.per_byte_cycles=2.5e5
t set-peak-tflops-tiny 2 --topology "$T" --bench gemm --param K=256 --set pe.gemm.peak_tflops=1e-9
t set-gemm-tile-over-a-second 2 "${CT[@]}" --set pe.gemm.peak_tflops=0.001 --set pe.gemm.tile_m=4096 --set pe.gemm.tile_k=4096
t set-bw-subnormal 2 "${CT[@]}" --set host.d2h.bandwidth_gbps=2e-320
t set-latency-past-a-double 2 "${CT[@]}" --set sip.hub_latency_ns=7e308
t set-energy-past-a-double 2 "${CT[@]}" --set cube.sram.energy.static_mw=1e310
t set-name-with-a-newline 2 "${CT[@]}" --set $'name=two\nlines'
t topo-clock-out-of-range 2 --topology "$FIX/clock_file.yaml" --check-topology
t topo-key-over-1024 2 --topology "$FIX/long_key.yaml" --check-topology
# the ends of the ranges run
t set-clock-at-its-floor 0 "${DMA[@]}" --set pe.clock_ghz=0.001 --set pe.cost_model.fixed_per_single_op_cmd_cycles=1e6

# documented: sizes take binary units
t set-tcm-size-unit-2MiB 0 "${CT[@]}" --set pe.tcm.size_bytes=2MiB

# ===========================================================================
# 4. Topology files
t topo-dev-zero 2 --topology /dev/zero --check-topology
t topo-dev-urandom 2 --topology /dev/urandom --check-topology
t topo-directory 2 --topology "$REPO/topologies" --check-topology
t topo-nonexistent 2 --topology "$REPO/topologies/nonexistent.yaml" --check-topology
t topo-300-chars 2 --topology "$LONG300.yaml" --check-topology
t topo-empty-string 2 --topology "" --check-topology
# an empty (truncated) topology file is refused rather than taken as "all defaults"
t topo-empty-file 2 --topology "$FIX/empty.yaml" --check-topology
t topo-binary-garbage 2 --topology "$FIX/garbage.bin" --check-topology
t topo-nul-byte 2 --topology "$FIX/nul.yaml" --check-topology
t topo-deep-seq-100000 2 --topology "$FIX/deep_seq.yaml" --check-topology
t topo-deep-map-100000 2 --topology "$FIX/deep_map.yaml" --check-topology
t topo-dup-top-key 2 --topology "$FIX/dup_top.yaml" --check-topology
t topo-dup-nested-key 2 --topology "$FIX/dup_nested.yaml" --check-topology
t topo-20MB 2 --topology "$FIX/big20mb.yaml" --check-topology
t topo-syntax-error 2 --topology "$FIX/syntax.yaml" --check-topology
t topo-tab-indent 2 --topology "$FIX/tabs.yaml" --check-topology
t topo-wrong-type 2 --topology "$FIX/wrongtype.yaml" --check-topology
t topo-list-for-scalar 2 --topology "$FIX/listval.yaml" --check-topology
t topo-unknown-key 2 --topology "$FIX/unknown_key.yaml" --check-topology
t topo-n_sips-4294967297 2 --topology "$FIX/nsips_huge.yaml" --check-topology
t topo-int-overflow 2 --topology "$FIX/int_overflow.yaml" --check-topology
t topo-scalar-root 2 --topology "$FIX/scalar_root.yaml" --check-topology
t topo-sequence-root 2 --topology "$FIX/seq_root.yaml" --check-topology
t topo-billion-laughs 2 --topology "$FIX/laughs.yaml" --check-topology
# realistic and valid: an invalid-UTF-8 name (JSON gets U+FFFD), CRLF line ends, a UTF-8 BOM
t topo-bad-utf8-name-json 0 --topology "$FIX/badutf8_name.yaml" --bench dma --param bytes=4096 --json ok.json
t topo-crlf 0 --topology "$FIX/crlf.yaml" --check-topology
t topo-utf8-bom 0 --topology "$FIX/bom.yaml" --check-topology
if begin topo-fifo 2; then
  mkfifo "$S/fifo"
  keep fifo
  kb --topology fifo --check-topology
  finish
fi
if [ "$IS_ROOT" = 1 ]; then
  skip topo-unreadable "root bypasses file permissions"
else
  if begin topo-unreadable 2; then
    cp "$T" "$S/t.yaml"
    chmod 000 "$S/t.yaml"
    kb --topology t.yaml --check-topology
    finish
  fi
fi

# ===========================================================================
# 5. Command line
t cli-stray-positional 2 "${DMA[@]}" rows=2
t cli-stray-positional-check 2 "${CT[@]}" extra
t cli-stray-positional-list 2 --list-benches extra
t cli-unknown-option 2 "${DMA[@]}" --jsno x.json
t cli-unknown-short-option 2 "${DMA[@]}" -z
t cli-missing-value 2 "${DMA[@]}" --json
t cli-bench-typo 2 --topology "$T" --bench gemmm
t cli-bench-empty 2 --topology "$T" --bench ""
t cli-bench-bad-utf8 2 --topology "$T" --bench $'\xff\xfe'
t cli-quiet-still-reports 2 --topology "$T" --quiet --bench gemmm
t cli-param-no-equals 2 "${DMA[@]}" --param bytes
t cli-param-empty-key 2 "${DMA[@]}" --param =4096
t cli-param-unknown-key 2 "${DMA[@]}" --param bytez=4096
t cli-param-with-check-topology 2 "${CT[@]}" --param bytes=4096
t cli-param-duplicate 2 --topology "$T" --bench dma --param bytes=4096 --param bytes=8192
t cli-param-100KB-value 2 --topology "$T" --bench dma --param "bytes=$(printf '9%.0s' $(seq 100000))"
t cli-repeated-bench 2 --topology "$T" --bench dma --bench gemm
t cli-repeated-json 2 "${DMA[@]}" --json a.json --json b.json
t cli-repeated-topology 2 --topology "$T" --topology "$T" --check-topology
t cli-json-empty 2 "${DMA[@]}" --json ""
t cli-out-empty 2 "${DMA[@]}" --out ""
t cli-merge-without-sweep 2 "${DMA[@]}" --merge
t cli-jobs-without-sweep 2 "${DMA[@]}" -j 4
# an option the chosen mode never reads is an error, not ignored
t_absent cli-list-benches-with-trace 2 t.json --list-benches --trace t.json
t cli-describe-topology-with-set 2 --describe-topology --set cube.pes=2
t_absent cli-check-topology-with-vcd 2 w.vcd "${CT[@]}" --vcd w.vcd
t cli-check-topology-with-bench 2 "${CT[@]}" --bench dma
t_absent cli-describe-stats-with-json 2 s.json --topology "$T" --describe-stats --json s.json
t cli-two-information-modes 2 --list-benches --describe-stats
t cli-trace-scope-without-trace 2 "${DMA[@]}" --trace-scope 'system.*'
t cli-vcd-scope-without-vcd 2 "${DMA[@]}" --vcd-scope 'system.*'

# ===========================================================================
# 6. Sweeps
sweep_case() { # NAME EXPECTED KERNBENCH-ARGS...: with a.yaml, a valid 1-point dma sweep
  local name=$1 exp=$2
  shift 2
  begin "$name" "$exp" || return 0
  spec_dma a.yaml 4096
  kb "$@"
  finish
}
sweep_case sweep-jobs-negative 2 --sweep a.yaml --out out --quiet -j -1
sweep_case sweep-jobs-0 2 --sweep a.yaml --out out --quiet -j 0
sweep_case sweep-jobs-abc 2 --sweep a.yaml --out out --quiet -j abc
sweep_case sweep-jobs-99999 2 --sweep a.yaml --out out --quiet -j 99999
sweep_case sweep-jobs-2pow32 2 --sweep a.yaml --out out --quiet -j 4294967297
sweep_case sweep-no-out 2 --sweep a.yaml
sweep_case sweep-out-proc 2 --sweep a.yaml --out /proc/x --quiet
sweep_case sweep-out-300-chars 2 --sweep a.yaml --out "$LONG300" --quiet
if begin sweep-out-is-a-file 2; then
  spec_dma a.yaml 4096
  echo KNOWN >"$S/out"
  keep out
  kb --sweep a.yaml --out out --quiet
  finish
fi
sweep_case sweep-ok 0 --sweep a.yaml --out out --quiet
# options a sweep's driver never reads (each point writes its own result under --out)
sweep_case sweep-with-trace-scope 2 --sweep a.yaml --out out --quiet --trace-scope 'system.*'
sweep_case sweep-with-vcd-scope 2 --sweep a.yaml --out out --quiet --vcd-scope 'system.*'
# Slurm resources are validated: one of sbatch's time formats, a positive memory
sweep_case sweep-slurm-time-in-days 2 --sweep a.yaml --out out --emit-slurm s.sh --slurm time=2days
sweep_case sweep-slurm-mem-zero 2 --sweep a.yaml --out out --emit-slurm s.sh --slurm mem=0M
sweep_case sweep-slurm-cpus-fraction 2 --sweep a.yaml --out out --emit-slurm s.sh --slurm cpus_per_task=1.5
t sweep-spec-nonexistent 2 --sweep nonexistent.yaml --out out --quiet
t sweep-spec-directory 2 --sweep "$REPO/scripts" --out out --quiet
t sweep-spec-dev-zero 2 --sweep /dev/zero --out out --quiet
t sweep-spec-empty 2 --sweep "$FIX/empty.yaml" --out out --quiet
t sweep-spec-garbage 2 --sweep "$FIX/garbage.bin" --out out --quiet
t sweep-spec-deep-nesting 2 --sweep "$FIX/deep_seq.yaml" --out out --quiet
t sweep-spec-20MB 2 --sweep "$FIX/big20mb_spec.yaml" --out out --quiet
if begin sweep-spec-fifo 2; then
  mkfifo "$S/fifo"
  keep fifo
  kb --sweep fifo --out out --quiet
  finish
fi

# specs that are wrong: refused before any point runs (no point_0000.log)
bad_spec() { # NAME EXPECTED then YAML lines on stdin
  local name=$1 exp=$2
  begin "$name" "$exp" || { cat >/dev/null; return 0; }
  cat >"$S/bad.yaml"
  absent out/point_0000.log out/point_0000.json
  kb --sweep bad.yaml --out out --quiet
  finish
}
# A column that is none of the bench's declared point fields, with the nearest.
bad_spec sweep-unknown-column 2 <<EOF
bench: dma
topology: $T
grid: {param: {bytes: [4096]}}
columns: [latency_nss]
EOF
bad_spec sweep-unknown-top-key 2 <<EOF
bench: dma
topology: $T
gird: {param: {bytes: [4096]}}
EOF
bad_spec sweep-grid-param-typo 2 <<EOF
bench: dma
topology: $T
grid: {param: {bytez: [4096, 8192]}}
EOF
# A bad parameter *value* fails its own point (the bench judges it), and the
# good points keep their results: exit 3 and one line, like sweep-point-fault.
if begin sweep-grid-param-bad-value 3; then
  printf 'bench: dma\ntopology: %s\ngrid: {param: {bytes: [4096, -1]}}\n' "$T" >"$S/bad.yaml"
  kb --sweep bad.yaml --out out --quiet
  finish
fi
bad_spec sweep-grid-set-typo 2 <<EOF
bench: dma
topology: $T
param: [bytes=4096]
grid: {set: {cube.pez: [2]}}
EOF
bad_spec sweep-grid-set-bad-value 2 <<EOF
bench: dma
topology: $T
param: [bytes=4096]
grid: {set: {cube.pes: [2, 0]}}
EOF
bad_spec sweep-fixed-param-typo 2 <<EOF
bench: dma
topology: $T
param: [bytez=4096]
grid: {param: {rows: [1, 2]}}
EOF
bad_spec sweep-fixed-set-typo 2 <<EOF
bench: dma
topology: $T
set: [pe.dma.setup_nss=3]
grid: {param: {bytes: [4096]}}
EOF
bad_spec sweep-bench-typo 2 <<EOF
bench: dmaa
topology: $T
grid: {param: {bytes: [4096]}}
EOF
bad_spec sweep-topology-missing 2 <<EOF
bench: dma
topology: $REPO/topologies/nonexistent.yaml
grid: {param: {bytes: [4096]}}
EOF
bad_spec sweep-grid-empty-values 2 <<EOF
bench: dma
topology: $T
grid: {param: {bytes: []}}
EOF
bad_spec sweep-grid-value-twice 2 <<EOF
bench: dma
topology: $T
grid: {param: {bytes: [4096, 8192, 8192]}}
EOF
bad_spec sweep-spec-slurm-minutes-99 2 <<EOF
bench: dma
topology: $T
slurm: {time: "25:99:00"}
grid: {param: {bytes: [4096]}}
EOF
bad_spec sweep-spec-slurm-mem-fraction 2 <<EOF
bench: dma
topology: $T
slurm: {mem: 1.5G}
grid: {param: {bytes: [4096]}}
EOF
bad_spec sweep-grid-nested-values 2 <<EOF
bench: dma
topology: $T
grid: {param: {bytes: [[4096, 8192]]}}
EOF
bad_spec sweep-data-maybe 2 <<EOF
bench: dma
topology: $T
data: maybe
grid: {param: {bytes: [4096]}}
EOF
bad_spec sweep-duplicate-key 2 <<EOF
bench: dma
bench: gemm
topology: $T
grid: {param: {bytes: [4096]}}
EOF
bad_spec sweep-billion-laughs 2 <<EOF
bench: dma
topology: $T
columns: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]
set: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
param: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
grid: {param: {bytes: [*c, *c, *c, *c, *c, *c, *c, *c, *c]}}
EOF
if begin sweep-too-many-points 2; then
  {
    echo "bench: dma"
    echo "topology: $T"
    echo "grid:"
    echo "  param:"
    echo "    bytes: [$(seq -s, 1 1000)]"
    echo "    rows: [$(seq -s, 1 1000)]"
  } >"$S/big.yaml"
  absent out/point_0000.log
  kb --sweep big.yaml --out out --quiet
  finish
fi

# --merge
if begin merge-no-results 2; then
  spec_dma a.yaml 4096
  mkdir "$S/out"
  kb --sweep a.yaml --out out --merge --quiet
  finish
fi
if begin merge-out-nonexistent 2; then
  spec_dma a.yaml 4096
  absent out
  kb --sweep a.yaml --out out --merge --quiet
  finish
fi
# a corrupt point result: the point is failed (3) or the merge refused (2)
if begin merge-corrupt-point "2|3"; then
  spec_dma a.yaml 4096
  kb_setup --sweep a.yaml --out out --quiet
  printf '{"points": [garbage' >"$S/out/point_0000.json"
  kb --sweep a.yaml --out out --merge --quiet
  finish
fi
# stale merge: spec B (8192 bytes) merged over spec A's results (4096 bytes) must not
# report B's point "ok" with A's numbers: non-zero exit (2 refused / 3 point stale)
if begin merge-stale-results "2|3"; then
  spec_dma a.yaml 4096
  spec_dma b.yaml 8192
  kb_setup --sweep a.yaml --out out --quiet -j 1
  STDOUT_REPORT='STALE|FAILED|not merged'
  kb --sweep b.yaml --out out --merge
  finish
fi
if begin merge-stale-set-axis "2|3"; then
  spec_dma a.yaml 4096
  spec_dma b.yaml 4096 "set: [cube.pe_link.bandwidth_gbps=64]"
  kb_setup --sweep a.yaml --out out --quiet -j 1
  STDOUT_REPORT='STALE|FAILED|not merged'
  kb --sweep b.yaml --out out --merge
  finish
fi
# --resume after another spec's run: the stale point is rerun, not kept
if begin resume-after-other-spec 0; then
  spec_dma a.yaml 4096
  spec_dma b.yaml 8192
  kb_setup --sweep a.yaml --out out --quiet -j 1
  kb --sweep b.yaml --out out --resume --quiet
  grep -aqE '"bytes": *8192' "$S/out/point_0000.json" 2>/dev/null || lost "point_0000.json is not B's result"
  finish
fi
t cli-resume-without-sweep 2 "${DMA[@]}" --resume
# a point that faults: exit 3, the failed point listed in the table (stdout)...
fault_spec() {
  {
    echo "bench: dma"
    echo "topology: $T"
    echo "param: [bytes=4096]"
    echo "grid: {param: {dst: [tcm:0.0.0+0, '$UNMAPPED']}}"
  } >"$S/f.yaml"
}
if begin sweep-point-fault 3; then
  fault_spec
  STDOUT_REPORT='FAILED|failed:'
  kb --sweep f.yaml --out out
  finish
fi
# ...and with --quiet ("print only errors") still one line on stderr
if begin sweep-point-fault-quiet 3; then
  fault_spec
  kb --sweep f.yaml --out out --quiet
  finish
fi

# ===========================================================================
# 7. Simulation faults
t sim-dma-dst-unmapped 3 "${DMA[@]}" --param dst=$UNMAPPED
t sim-dma-src-unmapped 3 "${DMA[@]}" --param src=$UNMAPPED
t sim-dma-src-unmapped-data 3 "${DMA[@]}" --param src=$UNMAPPED --data
t sim-dma-dst-unmapped-vcd 3 "${DMA[@]}" --param dst=$UNMAPPED --vcd v.vcd
# a byte-misaligned transfer: either supported (0) or a clean fault (3)
t sim-dma-misaligned "0|3" --topology "$T" --bench dma --param src=hbm:0.0.0+1 --param dst=tcm:0.0.0+3 --param bytes=4093
t sim-dma-straddles-hbm-end "2|3" --topology "$T" --bench dma --param src=hbm:0.0.0+67104768 --param bytes=8192
t sim-vcd-proc 2 "${DMA[@]}" --vcd /proc/x

# ===========================================================================
# 8. Signals: a long run with --vcd and --json, interrupted mid-run.
# Expected: 128+signal (or a clean 2/3), no *.partial*, .kb-*, *.tmp left, and
# neither out.vcd nor out.json (the run did not finish).
LONG=(--topology "$T" --bench gemm --param M=256 --param K=16384 --param N=256 --param variant=ref_ref)
signal_case() { # NAME SIGNAL CODE [sweep]
  local name=$1 sig=$2 code=$3 mode=${4:-bench} i child
  begin "$name" "$code|2|3" || return 0
  absent out.vcd out.json
  if [ "$mode" = sweep ]; then
    {
      echo "bench: gemm"
      echo "topology: $T"
      echo "param: [variant=ref_ref, M=256, N=256]"
      echo "grid: {param: {K: [16384, 16448, 16512, 16576]}}"
    } >"$S/long.yaml"
    kb_start --sweep long.yaml --out out --quiet -j 2
  else
    kb_start "${LONG[@]}" --quiet --vcd out.vcd --json out.json
  fi
  # wait until the run has started writing (any new file; for a sweep, its first
  # point's log: the children are running), then 1 s more
  for i in $(seq 1 100); do
    if [ "$mode" = sweep ]; then
      [ -e "$S/out/point_0000.log" ] && break
    else
      [ -n "$(ls -A "$S" | grep -v '\.yaml$')" ] && break
    fi
    kill -0 "$BG_PID" 2>/dev/null || break
    sleep 0.1
  done
  sleep 1
  child=$(pgrep -P "$BG_PID" | head -n1)
  kill -s "$sig" "${child:-$BG_PID}" 2>/dev/null
  kb_wait
  if [ "$RC" = 0 ]; then
    ABSENT_P=()
    NOTE="finished before the signal: lengthen the run"
  fi
  finish
}
signal_case signal-int-vcd-json INT 130
signal_case signal-term-vcd-json TERM 143
signal_case signal-hup-vcd-json HUP 129
signal_case signal-int-sweep INT 130 sweep
signal_case signal-term-sweep TERM 143 sweep

# ===========================================================================
echo
echo "summary ($KB_ORIG):"
if [ "$(stat -c '%y %s' "$KB_ORIG" 2>/dev/null)" != "$KB_STAMP" ]; then
  if [ "$KB" != "$KB_ORIG" ]; then
    echo "  note: $KB_ORIG was rebuilt during the tour; these results are for the build of ${KB_STAMP% *}"
  else
    echo "  WARNING: $KB changed during the tour (rebuilt?): the cases ran against more than one build"
  fi
fi
declare -A COUNT=()
for c in "${R_CLASS[@]}"; do COUNT[$c]=$((${COUNT[$c]:-0} + 1)); done
total=0
for c in clear-error ok-expected wrong-code unclear crash hang sanitizer lost-file skip; do
  printf '  %-12s %d\n' "$c" "${COUNT[$c]:-0}"
  total=$((total + ${COUNT[$c]:-0}))
done
printf '  %-12s %d\n' total "$total"
bad=0
for i in "${!R_CLASS[@]}"; do
  case ${R_CLASS[$i]} in clear-error | ok-expected | skip) ;; *) bad=$((bad + 1)) ;; esac
done
if [ "$bad" -gt 0 ]; then
  echo
  echo "defects ($bad cases outside clear-error / ok-expected):"
  for i in "${!R_CLASS[@]}"; do
    case ${R_CLASS[$i]} in clear-error | ok-expected | skip) ;; *) echo "  ${R_LINE[$i]}" ;; esac
  done
  exit 1
fi
exit 0
