#!/usr/bin/env bash
# Soak: thousands of mixed bench points through `kernbench --sweep`, then
#   - every point's result must be ok,
#   - the children's peak RSS must stay steady from the first points of a
#     sweep to its last (median of the first and last tenth, per bench),
#   - the sweep driver's own peak RSS must not grow with the number of points,
#   - every 25th point rerun alone must give the same JSON (wall time aside).
# A bench, not a CI test: about 2,400 points take a few minutes on 2 cores.
#
#   bash scripts/soak.sh [KERNBENCH] [SCALE]     SCALE multiplies the grids (default 1)
set -uo pipefail
cd "$(dirname "$0")/.."
kb="${1:-./build/kernbench}"
scale="${2:-1}"
tiny="$PWD/topologies/tiny.yaml"
work=$(mktemp -d /tmp/kb_soak_XXXXXX)
trap 'rm -rf "$work"' EXIT

seq_list() { python3 -c "import sys; n=int(sys.argv[1]); s=int(sys.argv[2]); print(', '.join(str(s*(i+1)) for i in range(n)))" "$1" "$2"; }
n=$((60 * scale))
cat > "$work/dma.yaml" <<YAML
bench: dma
topology: $tiny
param: [src=hbm:0.3.1+0, dst=tcm:0.0.0+0]
grid:
  set: {sip.cube_link.bandwidth_gbps: [32, 64, 128, 256]}
  param: {bytes: [$(seq_list "$n" 1024)]}
YAML
cat > "$work/gemm.yaml" <<YAML
bench: gemm
topology: $tiny
grid:
  set: {pe.dma.max_outstanding: [4, 16, 64]}
  param: {variant: [load_ref, ref_ref], K: [$(seq_list $((n / 2)) 64)]}
YAML
cat > "$work/allreduce.yaml" <<YAML
bench: allreduce
topology: $tiny
grid:
  set: {sip.topology: [mesh, ring, torus2d]}
  param: {algo: [ring, 2d, binomial], bytes_per_pe: [$(seq_list $((n / 3)) 1024)]}
YAML
cat > "$work/gqa.yaml" <<YAML
bench: gqa-decode
topology: $tiny
grid:
  set: {pe.hbm.queue_depth: [2, 8]}
  param: {variant: [opt1, opt2, opt3], S_kv: [$(seq_list $((n / 2)) 128)]}
YAML

status=0
total=0
printf '%-10s %7s %6s %12s %14s %14s %12s\n' bench points failed driver_MB child_MB_first child_MB_last wall_s
for b in dma gemm allreduce gqa; do
  out="$work/out_$b"
  /usr/bin/time -f '%M' -o "$work/$b.driver_rss" "$kb" --sweep "$work/$b.yaml" --out "$out" -j 2 -q
  rc=$?
  read -r points failed first last wall < <(python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
m = json.load(open(out + "/sweep.json"))
res = json.load(open(out + "/resources.json"))
rss = [res[str(i)]["max_rss_kib"] / 1024 for i in range(m["total"])]
k = max(1, len(rss) // 10)
print(m["total"], m["failed"], round(statistics.median(rss[:k]), 1),
      round(statistics.median(rss[-k:]), 1), round(sum(r["wall_s"] for r in res.values()), 1))
PY
)
  drv=$(( $(cat "$work/$b.driver_rss") / 1024 ))
  printf '%-10s %7s %6s %12s %14s %14s %12s\n' "$b" "$points" "$failed" "$drv" "$first" "$last" "$wall"
  total=$((total + points))
  [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] || { echo "soak: $b sweep failed (exit $rc)"; status=1; }
  # Steady: the last tenth's median RSS within 10% of the first tenth's.
  python3 -c "import sys; f, l = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if l <= f * 1.10 + 1 else 1)" \
    "$first" "$last" || { echo "soak: $b child RSS grew from $first to $last MB"; status=1; }
  # Every 25th point alone, compared with its sweep result.
  mismatches=$(python3 - "$out" "$kb" <<'PY'
import json, shlex, subprocess, sys
out, kb = sys.argv[1], sys.argv[2]
m = json.load(open(out + "/sweep.json"))
bad = 0
for r in m["runs"][::25]:
    argv = shlex.split(r["command"])
    i = argv.index("--json")
    single = out + "/single.json"
    argv[i + 1] = single
    argv[0] = kb
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    a = json.load(open(single)); a.pop("wall_s", None)
    b = json.load(open(out + "/point_%04d.json" % r["index"])); b.pop("wall_s", None)
    bad += a != b
print(bad)
PY
)
  [ "$mismatches" = 0 ] || { echo "soak: $b: $mismatches points differ when run alone"; status=1; }
done
echo "soak: $total points; every 25th rerun alone: identical=$([ $status -eq 0 ] && echo yes || echo see above)"
exit $status
