#!/usr/bin/env bash
# Checks that a model change keeps results byte-identical: runs a set of wide
# workloads with two kernbench binaries and compares their op logs and JSON
# results (wall-clock fields dropped). Use it before committing an
# optimisation, beside the goldens (which only cover tiny runs):
#
#   git stash && cmake --build build -j2 --target kernbench && cp build/kernbench /tmp/kb_before
#   git stash pop && cmake --build build -j2 --target kernbench
#   bash scripts/compare_builds.sh /tmp/kb_before build/kernbench
#
# Exit status 0 when every run matches, 1 otherwise (the differing runs are
# named; their outputs are kept in the scratch directory printed at the end).
#
# --added-keys-ok: a change that adds outputs (new counters, metrics, signals) but
# must change none that exist: every JSON key of OLD must be in NEW with the
# same value, keys only NEW has are allowed; every op log record of OLD is
# the same line of NEW with the same values (new keys allowed), and every VCD
# signal of OLD keeps its value changes (new signals are allowed).
set -uo pipefail
added_ok=0
if [ "${1:-}" = "--added-keys-ok" ]; then
  added_ok=1
  shift
fi
if [ $# -ne 2 ]; then
  echo "usage: $0 [--added-keys-ok] OLD_KERNBENCH NEW_KERNBENCH" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
cd "$(dirname "$0")/.."
scratch=$(mktemp -d /tmp/kb_compare_XXXXXX)
runs=(
  "allreduce --param algo=hierarchical,ring,2d,binomial --param bytes_per_pe=96KiB"
  "allreduce --param algo=ring --param buffer=hbm --param bytes_per_pe=64KiB"
  "gqa-sweep --param S_kv=8192"
  "gqa-decode --param variant=opt1,opt2,opt3 --param S_kv=4096"
  "gemm --param M=256 --param K=1024 --param N=256"
  "gemm --param M=64 --param K=2048 --param N=64 --param variant=ref_ref"
  "gqa-prefill --param S=2048"
  "gqa-short"
  "probe"
  "dma --param src=hbm:0.5.3+0 --param dst=tcm:0.0.0+0 --param bytes=1048576"
  "probe --topology topologies/llama70b_4sip.yaml"
  "gqa-long --topology topologies/llama70b_4sip.yaml --param C=8 --param P=2 --param S_kv=4096"
  "llm --topology topologies/tiny.yaml --param model=llama3_8b --param model.layers=2 --param model.hidden=120 --param model.heads=6 --param model.kv_heads=3 --param model.d_head=20 --param model.ffn=200 --param model.vocab=250 --param ranks=6 --param batch=3 --param context=37"
  "llm --param model=llama3_70b --param layers=1 --param ranks=64 --param model.ffn=4096 --param model.vocab=4096 --param context=1000"
  "llm --topology topologies/tiny.yaml --param model=llama3_8b --param model.layers=2 --param model.hidden=120 --param model.heads=6 --param model.kv_heads=3 --param model.d_head=20 --param model.ffn=200 --param model.vocab=250 --param ranks=6 --param batch=2 --param phase=prefill --param prompt=23"
  "llm --topology topologies/tiny.yaml --param model=llama3_8b --param model.layers=2 --param model.hidden=120 --param model.heads=6 --param model.kv_heads=3 --param model.d_head=20 --param model.ffn=200 --param model.vocab=250 --set system.n_sips=2 --param ranks=12 --param batch=3 --param context=37 --param mapping=pp"
  "llm --param model=llama3_70b --param layers=1 --param ranks=64 --param model.ffn=4096 --param model.vocab=4096 --param context=1000 --param allreduce=hierarchical"
  "gemm-strategies --param shapes=32x256x32,128x1024x128 --param sync=wait"
  "gemm-strategies --param shapes=32x1024x32 --param strategies=async-full,async-tiled --param sync=nowait"
  "gemm-sweep --param shapes=32x1024x32,256x256x256"
  "math"
  "milestone"
)
rc=0
i=0
for run in "${runs[@]}"; do
  i=$((i + 1))
  failed=""
  for side in old new; do
    bin=$old
    [ "$side" = new ] && bin=$new
    # shellcheck disable=SC2086  # the run is a word list on purpose
    if ! "$bin" --bench $run --oplog "$scratch/$i.$side.jsonl" --json "$scratch/$i.$side.json" \
      > "$scratch/$i.$side.out" 2>&1; then
      failed="$failed $side"
      continue
    fi
    grep -v '"wall_s\|"kernbench_version' "$scratch/$i.$side.json" > "$scratch/$i.$side.nowall.json"
  done
  if [ -n "$failed" ]; then
    printf '%-90s FAILED (%s): see %s\n' "$run" "${failed# }" "$scratch/$i.*.out"
    rc=1
    continue
  fi
  verdict="identical"
  if ! cmp -s "$scratch/$i.old.jsonl" "$scratch/$i.new.jsonl"; then
    # With --added-keys-ok, each record of OLD must be the same line of NEW
    # with the same values (keys only NEW has are allowed).
    if [ $added_ok = 0 ] || ! python3 - "$scratch/$i.old.jsonl" "$scratch/$i.new.jsonl" <<'PY'
import json, sys
with open(sys.argv[1]) as a, open(sys.argv[2]) as b:
    old, new = a.readlines(), b.readlines()
bad = len(old) != len(new)
for n, (o, w) in enumerate(zip(old, new)):
    o, w = json.loads(o), json.loads(w)
    if any(k not in w or w[k] != v for k, v in o.items()):
        print("  op log line %d: %s -> %s" % (n + 1, json.dumps(o)[:80], json.dumps(w)[:80]))
        bad = True
        break
sys.exit(1 if bad else 0)
PY
    then
      verdict="OP LOG DIFFERS"
      rc=1
    fi
  fi
  if [ $added_ok = 1 ]; then
    if ! python3 - "$scratch/$i.old.json" "$scratch/$i.new.json" <<'PY'
import json, sys
def load(path):
    # The op log's hash goes too: the op log itself was compared record by record.
    def strip(v, parent=""):
        if isinstance(v, dict):
            return {k: strip(x, k) for k, x in v.items()
                    if not k.startswith("wall_s") and k != "kernbench_version"
                    and not (parent == "op_log" and k == "fnv1a64")}
        return [strip(x) for x in v] if isinstance(v, list) else v
    return strip(json.load(open(path)))
def within(old, new, path):
    if isinstance(old, dict) and isinstance(new, dict):
        return all([k in new and within(v, new[k], path + "." + k) for k, v in old.items()])
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return all([within(o, n, path + "[%d]" % i) for i, (o, n) in enumerate(zip(old, new))])
    if old != new:
        print("  " + path + ": " + json.dumps(old)[:80] + " -> " + json.dumps(new)[:80])
        return False
    return True
sys.exit(0 if within(load(sys.argv[1]), load(sys.argv[2]), "") else 1)
PY
    then
      verdict="$verdict, JSON DIFFERS"
      rc=1
    fi
  elif ! cmp -s "$scratch/$i.old.nowall.json" "$scratch/$i.new.nowall.json"; then
    verdict="$verdict, JSON DIFFERS"
    rc=1
  fi
  printf '%-90s %7s records  %s\n' "$run" "$(wc -l < "$scratch/$i.old.jsonl")" "$verdict"
done
# The waveform of one run: the VCD minus its $date block.
vcd_run="gemm --param M=64 --param K=512 --param N=64"
for side in old new; do
  bin=$old
  [ "$side" = new ] && bin=$new
  # shellcheck disable=SC2086
  "$bin" --bench $vcd_run --vcd "$scratch/w.$side.vcd" > "$scratch/w.$side.out" 2>&1 || rc=1
  sed '/^\$date/,/\$end/d' "$scratch/w.$side.vcd" > "$scratch/w.$side.nodate.vcd" 2>/dev/null
done
# With --added-keys-ok, every signal of OLD must have the same value changes
# in NEW (signals only NEW has are allowed; identifier codes may differ).
vcd_within() {
  python3 - "$1" "$2" <<'PY'
import sys
def signals(path):
    scope, ids, changes, t = [], {}, {}, 0
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w: continue
            if w[0] == "$scope": scope.append(w[2])
            elif w[0] == "$upscope": scope.pop()
            elif w[0] == "$var": ids.setdefault(w[3], []).append(".".join(scope + [w[4]]))
            elif w[0].startswith("#"): t = int(w[0][1:])
            elif w[0][0] in "br" and len(w) == 2:
                for n in ids.get(w[1], []): changes.setdefault(n, []).append((t, w[0]))
            elif w[0][0] in "01xzXZ" and not w[0].startswith("$"):
                for n in ids.get(w[0][1:], []): changes.setdefault(n, []).append((t, w[0][0]))
    names = {n for v in ids.values() for n in v}
    return names, changes
on, oc = signals(sys.argv[1]); nn, nc = signals(sys.argv[2])
bad = [n for n in on if n not in nn or oc.get(n) != nc.get(n)]
for n in bad[:5]: print("  differs:", n)
print(len(on), "signals of OLD,", len(nn - on), "added in NEW,", len(bad), "differ")
sys.exit(1 if bad else 0)
PY
}
if [ -s "$scratch/w.old.nodate.vcd" ] && { cmp -s "$scratch/w.old.nodate.vcd" "$scratch/w.new.nodate.vcd" ||
  { [ $added_ok = 1 ] && vcd_within "$scratch/w.old.nodate.vcd" "$scratch/w.new.nodate.vcd"; }; }; then
  printf '%-90s %7s lines    identical\n' "$vcd_run --vcd" "$(wc -l < "$scratch/w.old.nodate.vcd")"
else
  printf '%-90s VCD DIFFERS (or missing)\n' "$vcd_run --vcd"
  rc=1
fi
echo "outputs in $scratch"
exit $rc
