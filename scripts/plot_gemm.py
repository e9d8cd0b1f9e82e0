#!/usr/bin/python3
"""Plots of the GEMM study from a `kernbench --bench gemm-sweep --json FILE` result
(a `gemm` or `milestone` result works too: its GEMM points are plotted).

usage: scripts/plot_gemm.py RESULT.json [OUT_DIR] [--format png|pdf|svg] [--dpi N]

    ./build/kernbench --bench gemm-sweep --json out/gemm.json
    /usr/bin/python3 scripts/plot_gemm.py out/gemm.json          # next to the JSON

Writes into OUT_DIR (default: the folder of RESULT.json), FORMAT png by default:
  gemm_mac_util.FORMAT    MAC utilisation (% of the PE's peak) per shape and variant,
                          measured bars with the analytic model's value as a black tick
  gemm_hbm_util.FORMAT    HBM bandwidth utilisation: DMA bytes in the window over the
                          PE's HBM bandwidth (its value, from the result, in the label)
  gemm_tflops.FORMAT      TFLOP/s per PE, measured bars, analytic ticks, the peak dashed
  gemm_stage_util.FORMAT  each engine stage's busy time as a share of the window (DMA in,
                          FETCH, GEMM, STORE, DMA out), one bar per stage, one panel per
                          variant; stages overlap, so the bars are not stacked
Points a variant cannot run (pre-loaded operands that overflow the TCM) are marked
"skipped". Needs Debian's python3-matplotlib (scripts/install_deps.sh installs it).
"""
import sys

import kbplot
from kbplot import plt

VARIANTS = ["load_ref", "ref_ref", "load_load"]
STAGES = [("dma_in", "DMA in"), ("fetch", "FETCH"), ("gemm", "GEMM"), ("store", "STORE"),
          ("dma_out", "DMA out")]


def load(path):
    doc = kbplot.load(path, "plot_gemm.py")
    if doc.get("bench") not in ("gemm-sweep", "gemm", "milestone"):
        sys.exit(f"{path}: not a gemm-sweep result (bench = {doc.get('bench')!r})")
    every = [p for p in doc.get("points", []) if "variant" in p and "K" in p and "M" in p]
    points = [p for p in every if not p.get("skipped")]
    if not points:
        sys.exit(f"{path}: no measured GEMM points")
    return doc, every, points


def shape_label(p):
    return f"{p['M']}×{p['K']}×{p['N']}"


def shapes_of(points):
    """Shapes in the bench's order (first appearance)."""
    out = []
    for p in points:
        if shape_label(p) not in out:
            out.append(shape_label(p))
    return out


def peak_tflops(points):
    """The PE's peak, from the result: TFLOP/s over MAC utilisation."""
    vals = [p["tflops_per_pe"] / p["mac_util"] for p in points if p.get("mac_util")]
    return sum(vals) / len(vals) if vals else None


def hbm_gbps(points):
    """The HBM bandwidth utilisation is measured against: DMA bytes / window / util."""
    vals = [p["dma_bytes"] / p["window_ns"] / p["hbm_bw_util"] for p in points
            if p.get("hbm_bw_util") and p.get("dma_bytes")]
    return sum(vals) / len(vals) if vals else None


def grouped_bars(ax, every, points, value, model=None, ymax=None):
    """Bars per shape (x) and variant (colour); MODEL(p) as a black tick on each bar."""
    shapes = shapes_of(every)
    variants = [v for v in VARIANTS if any(p["variant"] == v for p in every)]
    width = 0.8 / len(variants)
    top = max(value(p) for p in points)
    for i, v in enumerate(variants):
        xs, ys, ms = [], [], []
        for j, s in enumerate(shapes):
            x = j + (i - (len(variants) - 1) / 2) * width
            p = next((q for q in points if shape_label(q) == s and q["variant"] == v), None)
            if p is None:
                if any(shape_label(q) == s and q["variant"] == v for q in every):
                    ax.text(x, 0.01 * (ymax or top), "skipped", rotation=90, ha="center",
                            va="bottom", fontsize=7, color="0.4")
                continue
            xs.append(x)
            ys.append(value(p))
            if model is not None and model(p) is not None:
                ms.append((x, model(p)))
        ax.bar(xs, ys, width, label=v, color=f"C{VARIANTS.index(v)}")
        if ms:
            ax.scatter([m[0] for m in ms], [m[1] for m in ms], marker="_", s=120,
                       linewidths=2, color="black", zorder=3,
                       label="analytic model" if i == 0 else None)
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels(shapes)
    ax.set_xlabel("shape M × K × N (fp16)")
    ax.set_xlim(-0.6, len(shapes) - 0.4)
    if ymax is not None:
        ax.set_ylim(0, ymax)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def main(argv=None):
    args, out = kbplot.parse_args(__doc__, "gemm", argv)
    doc, every, points = load(args.result)
    topo = kbplot.topology_name(doc)
    peak = peak_tflops(points)
    hbm = hbm_gbps(points)

    fig, ax = plt.subplots(figsize=(9, 4.2))
    grouped_bars(ax, every, points, lambda p: 100 * p["mac_util"],
                 lambda p: 100 * p["mac_util_analytic"] if "mac_util_analytic" in p else None,
                 ymax=108)
    ax.yaxis.set_major_formatter(kbplot.PERCENT)
    ax.set_ylabel("MAC utilisation (% of peak)")
    ax.set_title(f"GEMM MAC utilisation on one PE: measured (bars) vs analytic model (ticks) "
                 f"— {topo}")
    ax.legend(ncol=4, loc="upper left")
    fig.tight_layout()
    out.save(fig, "mac_util")

    fig, ax = plt.subplots(figsize=(9, 4.2))
    grouped_bars(ax, every, points, lambda p: 100 * p["hbm_bw_util"], ymax=108)
    ax.yaxis.set_major_formatter(kbplot.PERCENT)
    bw = f" of {hbm:.0f} GB/s" if hbm else ""
    ax.set_ylabel(f"HBM bandwidth utilisation (%{bw})")
    ax.set_title(f"GEMM HBM bandwidth utilisation (DMA bytes in the window) — {topo}")
    ax.legend(ncol=3, loc="upper left")
    fig.tight_layout()
    out.save(fig, "hbm_util")

    fig, ax = plt.subplots(figsize=(9, 4.2))
    model = (lambda p: peak * p["mac_util_analytic"]) if peak else None
    grouped_bars(ax, every, points, lambda p: p["tflops_per_pe"],
                 model if model and all("mac_util_analytic" in p for p in points) else None,
                 ymax=(peak or max(p["tflops_per_pe"] for p in points)) * 1.15)
    if peak:
        ax.axhline(peak, color="gray", linestyle="--", linewidth=1,
                   label=f"peak {peak:.3g} TFLOP/s")
    ax.set_ylabel("throughput (TFLOP/s per PE)")
    ax.set_title(f"GEMM throughput per PE: measured (bars) vs analytic model (ticks) — {topo}")
    ax.legend(ncol=5, loc="upper left")
    fig.tight_layout()
    out.save(fig, "tflops")

    # Each stage's busy share of the window, side by side: the stages of the
    # pipeline run concurrently, so their shares do not add up to anything.
    variants = [v for v in VARIANTS if any(p["variant"] == v for p in every)]
    shapes = shapes_of(every)
    height = 2.4 * len(variants) + 0.9
    fig, axes = plt.subplots(len(variants), 1, figsize=(9, height),
                             sharex=True, sharey=True, squeeze=False)
    width = 0.8 / len(STAGES)
    for ax, v in zip(axes[:, 0], variants):
        for i, (key, name) in enumerate(STAGES):
            xs, ys = [], []
            for j, s in enumerate(shapes):
                p = next((q for q in points if shape_label(q) == s and q["variant"] == v), None)
                if p is None:
                    continue
                xs.append(j + (i - (len(STAGES) - 1) / 2) * width)
                ys.append(100.0 * p["stage_busy_ns"].get(key, 0.0) / p["window_ns"])
            ax.bar(xs, ys, width, color=f"C{i}", label=name)
        for j, s in enumerate(shapes):
            if not any(shape_label(q) == s and q["variant"] == v for q in points):
                ax.text(j, 50, "skipped\n(TCM)", ha="center", va="center", fontsize=7,
                        color="0.4")
        ax.set_ylim(0, 105)
        ax.set_yticks([0, 25, 50, 75, 100])
        ax.yaxis.set_major_formatter(kbplot.PERCENT)
        ax.set_ylabel("busy (% of window)")
        ax.set_title(f"variant {v}", loc="left", fontsize=9, pad=3)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    axes[-1][0].set_xticks(range(len(shapes)))
    axes[-1][0].set_xticklabels(shapes)
    axes[-1][0].set_xlabel("shape M × K × N (fp16)")
    axes[0][0].set_xlim(-0.6, len(shapes) - 0.4)
    fig.suptitle(f"GEMM engine stages: busy time as a share of the window, each stage on its "
                 f"own (stages overlap) — {topo}", fontsize=10)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, ncol=len(STAGES), loc="upper center",
               bbox_to_anchor=(0.5, 1 - 0.3 / height), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.6 / height))
    out.save(fig, "stage_util")
    return 0


if __name__ == "__main__":
    sys.exit(main())
