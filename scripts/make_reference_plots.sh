#!/usr/bin/env bash
# Regenerates the reference images of docs/plots/ (see docs/plots/README.md) from small
# real runs of the built kernbench, one simulation at a time (three to four minutes in
# all on one core; the llm runs and the ccl-sweep are the long ones).
#
#   bash scripts/make_reference_plots.sh [--plots-only] [RUNS_DIR]
#
# RUNS_DIR (default /tmp/plots_runs) receives the JSON results, the llm sweep and the
# figures that are not kept; --plots-only redraws from the results already there.
# docs/plots/ receives one PNG per figure listed in docs/plots/README.md. KERNBENCH=PATH picks another binary (default build/kernbench),
# DPI=N another resolution (default 120, which keeps docs/plots/ small).
# Needs Debian's python3-matplotlib (scripts/install_deps.sh installs it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kb="${KERNBENCH:-$root/build/kernbench}"
py=/usr/bin/python3
plots_only=0
if [ "${1:-}" = --plots-only ]; then
  plots_only=1
  shift
fi
runs="${1:-/tmp/plots_runs}"
docs="$root/docs/plots"
dpi="${DPI:-120}"
mkdir -p "$runs" "$docs"
[ "$plots_only" = 1 ] || [ -x "$kb" ] || { echo "make_reference_plots.sh: no kernbench at $kb (build it first)" >&2; exit 1; }

# Runs "$@" quietly and reports its wall time.
timed() {
  local what="$1" t0 t1 cmd
  shift
  cmd="$*"
  t0=$(date +%s.%N)
  "$@"
  t1=$(date +%s.%N)
  awk -v w="$what" -v a="$t0" -v b="$t1" -v c="${cmd/#"$kb"/kernbench}" \
    'BEGIN { printf "%-16s %6.1f s  %s\n", w, b - a, c }'
}

plot() { "$py" "$root/scripts/$1" "${@:2}" --dpi "$dpi" >/dev/null; }

cd "$root"

# --- the runs --------------------------------------------------------------------------------
if [ "$plots_only" = 0 ]; then
  timed gemm-sweep "$kb" -q --bench gemm-sweep --json "$runs/gemm.json"
  timed gemm-strategies "$kb" -q --bench gemm-strategies --json "$runs/gemm_strategies.json"
  timed gqa-sweep "$kb" -q --bench gqa-sweep --param S_kv=2048,8192,32768 --json "$runs/gqa.json"
  # Every flat algorithm on the three cube topologies up to 256 KiB per PE; hierarchical
  # (every PE of every cube) and 1 MiB or more would take several minutes.
  timed ccl-sweep "$kb" -q --bench ccl-sweep --param jobs=1 \
    --param algo=ring,ring_bidir,2d,chain,binomial --param bytes_per_pe=4KiB,16KiB,64KiB,256KiB \
    --json "$runs/ccl.json"
  timed llm "$kb" -q --bench llm --param model=llama3_8b --param layers=4 --json "$runs/llm.json"
  cat >"$runs/llm_decode_sweep.yaml" <<'EOF'
# Llama-3-8B decode, one of its 32 layers, batch x context (make_reference_plots.sh).
bench: llm
param: [model=llama3_8b, phase=decode, layers=1]
grid:
  param:
    batch: [1, 4]
    context: [1023, 4095]
columns: [batch, context, latency_ns, bound_ns, latency_over_bound, tokens_per_s, roofline_tokens_per_s]
EOF
  rm -rf "$runs/llm_sweep"
  timed "llm sweep" "$kb" -q --sweep "$runs/llm_decode_sweep.yaml" --out "$runs/llm_sweep" -j 1
fi

# --- the figures -----------------------------------------------------------------------------
rm -f "$docs"/*.png
plot plot_gemm.py "$runs/gemm.json" "$docs"
plot plot_gemm_strategies.py "$runs/gemm_strategies.json" "$docs"
plot plot_gqa.py "$runs/gqa.json" "$docs"
plot plot_ccl.py "$runs/ccl.json" "$docs"
plot plot_llm.py "$runs/llm.json" "$docs"
plot plot_energy.py "$runs/llm.json" "$docs"
# The sweep's throughput and latency curves (its layer and model figures are the
# one-layer run's: the four-layer ones above are kept).
plot plot_llm.py "$runs/llm_sweep/sweep.json" "$runs/llm_sweep_plots"
cp "$runs/llm_sweep_plots/llm_tokens.png" "$runs/llm_sweep_plots/llm_latency.png" "$docs/"
# Energy by point needs a study whose points carry energy: the GEMM sweep.
plot plot_energy.py "$runs/gemm.json" "$runs/energy_gemm"
cp "$runs/energy_gemm/energy_points.png" "$docs/"

echo "$(find "$docs" -name '*.png' | wc -l) images, $(du -cb "$docs"/*.png | tail -1 | cut -f1) bytes in docs/plots/"
