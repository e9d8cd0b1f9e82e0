#!/usr/bin/python3
"""Plots of the GEMM issue strategies from a `kernbench --bench gemm-strategies --json FILE` result.

usage: scripts/plot_gemm_strategies.py STRATEGIES.json [OUT_DIR]

Writes into OUT_DIR (default: next to the JSON):
  gemm_strategies_tflops.png    TFLOP/s per PE of each strategy across K (M = N = 32), per variant
  gemm_strategies_dispatch.png  PE_CPU dispatch time inside the window by command kind, as a
                                share of the window, per strategy and K (window ns above)
  gemm_strategies_window.png    the window split by the GEMM engine: busy, idle while PE_CPU
                                dispatches (CPU-bound), idle otherwise (data, dependencies,
                                fill and drain), for every measured point
Needs Debian's python3-matplotlib (scripts/install_deps.sh installs it).
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

VARIANTS = ["load_ref", "ref_ref", "load_load"]
STRATEGIES = ["composite", "async-full", "async-tiled"]
KINDS = ["Composite", "DmaRead", "Gemm", "Math", "DmaWrite"]
MARKERS = {"composite": "o", "async-full": "s", "async-tiled": "^"}


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("bench") != "gemm-strategies":
        sys.exit(f"{path}: not a gemm-strategies result (bench = {doc.get('bench')!r})")
    points = [p for p in doc["points"] if "strategy" in p and not p.get("skipped")]
    if not points:
        sys.exit(f"{path}: no measured points")
    return doc, points


def shape_label(p):
    return f"{p['M']}x{p['K']}x{p['N']}"


def k_sweep(points, variant):
    """The M = N = 32 points of one variant, by strategy, sorted by K."""
    out = {}
    for s in STRATEGIES:
        out[s] = sorted((p for p in points if p["variant"] == variant and p["strategy"] == s
                         and p["M"] == 32 and p["N"] == 32), key=lambda p: p["K"])
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    doc, points = load(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(sys.argv[1]))
    os.makedirs(out, exist_ok=True)
    topo = doc.get("topology", {}).get("name", "?")
    sync = doc.get("metrics", {}).get("sync", "?")
    variants = [v for v in VARIANTS if any(p["variant"] == v for p in points)]

    # TFLOP/s across K.
    fig, axes = plt.subplots(1, len(variants), figsize=(4.6 * len(variants), 4), squeeze=False,
                             sharey=True)
    for ax, v in zip(axes[0], variants):
        for s, pts in k_sweep(points, v).items():
            if pts:
                ax.plot([p["K"] for p in pts], [p["tflops_per_pe"] for p in pts],
                        marker=MARKERS[s], label=s)
        ax.axhline(8.0, color="gray", linestyle="--", linewidth=0.8, label="peak 8 TFLOP/s")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("K (M = N = 32)")
        ax.set_title(v)
    axes[0][0].set_ylabel("TFLOP/s per PE")
    axes[0][-1].legend(fontsize=8)
    fig.suptitle(f"GEMM issue strategies: throughput across K — {topo}, sync={sync}")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gemm_strategies_tflops.png"), dpi=120)

    # Dispatch breakdown: PE_CPU dispatch time by command kind, as a share of
    # the window, with the window itself written above each bar.
    short = {"composite": "comp", "async-full": "full", "async-tiled": "tiled"}
    fig, axes = plt.subplots(len(variants), 1, figsize=(11, 3.3 * len(variants)), squeeze=False)
    for ax, v in zip(axes[:, 0], variants):
        sweep = k_sweep(points, v)
        ks = sorted({p["K"] for pts in sweep.values() for p in pts})
        xs, ticks, labels_done = [], [], set()
        x = 0.0
        for k in ks:
            for s in STRATEGIES:
                p = next((q for q in sweep[s] if q["K"] == k), None)
                if p is None:
                    continue
                bottom = 0.0
                for kind in KINDS:
                    val = 100.0 * p.get("dispatch_ns_by_kind", {}).get(kind, 0.0) / p["window_ns"]
                    if val <= 0:
                        continue
                    ax.bar(x, val, 0.8, bottom=bottom, color=f"C{KINDS.index(kind)}",
                           label=kind if kind not in labels_done else None)
                    labels_done.add(kind)
                    bottom += val
                ax.text(x, bottom + 2, f"{p['window_ns']:.0f}", ha="center", fontsize=6)
                xs.append(x)
                ticks.append(f"{short[s]}\nK={k}")
                x += 1
            x += 0.6  # gap between K groups
        ax.set_xticks(xs)
        ax.set_xticklabels(ticks, fontsize=6)
        ax.set_ylim(0, 110)
        ax.set_ylabel(f"{v}: % of window")
        ax.legend(ncol=5, fontsize=7, loc="upper left")
    axes[0][0].set_title(f"PE_CPU dispatch by command kind, % of the window (window ns above) "
                         f"— {topo}, sync={sync}", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gemm_strategies_dispatch.png"), dpi=120)

    # The window split by what the GEMM engine was doing.
    fig, ax = plt.subplots(figsize=(max(10, 0.28 * len(points)), 5))
    labels = [f"{shape_label(p)} {p['variant']}\n{p['strategy']}" for p in points]
    parts = [("gemm_busy_ns", "GEMM busy"), ("cpu_bound_ns", "GEMM idle, CPU dispatching"),
             ("gemm_idle_other_ns", "GEMM idle, other")]
    bottom = [0.0] * len(points)
    for key, name in parts:
        vals = [100.0 * p[key] / p["window_ns"] for p in points]
        ax.bar(range(len(points)), vals, 0.7, bottom=bottom, label=name)
        bottom = [b + x for b, x in zip(bottom, vals)]
    ax.set_xticks(range(len(points)))
    ax.set_xticklabels(labels, rotation=75, ha="right", fontsize=6)
    ax.set_ylim(0, 115)
    ax.set_ylabel("% of the window")
    ax.set_title(f"GEMM engine over the window — {topo}, sync={sync}")
    ax.legend(ncol=3, loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gemm_strategies_window.png"), dpi=120)
    print(f"wrote 3 plots to {out}")


if __name__ == "__main__":
    main()
