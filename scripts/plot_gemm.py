#!/usr/bin/python3
"""Plots of the GEMM study from a `kernbench --bench gemm-sweep --json FILE` result.

usage: scripts/plot_gemm.py SWEEP.json [OUT_DIR]

Writes into OUT_DIR (default: next to the JSON):
  gemm_mac_util.png      MAC utilisation, measured vs analytic, per shape and variant
  gemm_hbm_util.png      HBM bandwidth utilisation (DMA bytes in the window / 256 GB/s)
  gemm_tflops.png        TFLOP/s per PE against the peak
  gemm_stage_busy.png    per-stage busy time inside the window (DMA in, FETCH, GEMM, STORE, DMA out)
Needs Debian's python3-matplotlib (scripts/install_deps.sh installs it).
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

VARIANTS = ["load_ref", "ref_ref", "load_load"]
STAGES = ["dma_in", "fetch", "gemm", "store", "dma_out"]


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("bench") not in ("gemm-sweep", "gemm", "milestone"):
        sys.exit(f"{path}: not a gemm-sweep result (bench = {doc.get('bench')!r})")
    points = [p for p in doc["points"] if "variant" in p and not p.get("skipped")]
    if not points:
        sys.exit(f"{path}: no measured GEMM points")
    return doc, points


def shape_label(p):
    return f"{p['M']}x{p['K']}x{p['N']}"


def grouped_bars(ax, points, key, scale=1.0):
    shapes = sorted({shape_label(p) for p in points}, key=lambda s: [int(x) for x in s.split("x")])
    width = 0.8 / len(VARIANTS)
    for i, v in enumerate(VARIANTS):
        xs, ys = [], []
        for j, s in enumerate(shapes):
            for p in points:
                if shape_label(p) == s and p["variant"] == v:
                    xs.append(j + (i - 1) * width)
                    ys.append(p[key] * scale)
        ax.bar(xs, ys, width, label=v)
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels(shapes, rotation=30, ha="right")
    return shapes


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    doc, points = load(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(sys.argv[1]))
    os.makedirs(out, exist_ok=True)
    topo = doc.get("topology", {}).get("name", "?")

    fig, ax = plt.subplots(figsize=(10, 4.5))
    shapes = grouped_bars(ax, points, "mac_util", 100)
    width = 0.8 / len(VARIANTS)
    for i, v in enumerate(VARIANTS):
        xs = [j + (i - 1) * width for j, s in enumerate(shapes)
              for p in points if shape_label(p) == s and p["variant"] == v]
        ys = [p["mac_util_analytic"] * 100 for s in shapes
              for p in points if shape_label(p) == s and p["variant"] == v]
        ax.scatter(xs, ys, marker="_", s=200, color="black", zorder=3,
                   label="analytic" if i == 0 else None)
    ax.set_ylabel("MAC utilisation (%)")
    ax.set_title(f"GEMM MAC utilisation, measured (bars) vs analytic (ticks) — {topo}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gemm_mac_util.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(10, 4.5))
    grouped_bars(ax, points, "hbm_bw_util", 100)
    ax.set_ylabel("HBM bandwidth utilisation (%)")
    ax.set_title(f"GEMM HBM bandwidth utilisation — {topo}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gemm_hbm_util.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(10, 4.5))
    grouped_bars(ax, points, "tflops_per_pe")
    ax.axhline(8.0, color="gray", linestyle="--", label="peak 8 TFLOP/s")
    ax.set_ylabel("TFLOP/s per PE")
    ax.set_title(f"GEMM throughput per PE — {topo}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gemm_tflops.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(12, 5))
    labels = [f"{shape_label(p)}\n{p['variant']}" for p in points]
    bottom = [0.0] * len(points)
    for st in STAGES:
        vals = [100.0 * p["stage_busy_ns"][st] / p["window_ns"] for p in points]
        ax.bar(range(len(points)), vals, 0.7, bottom=bottom, label=st)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(range(len(points)))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("busy time, % of the window (stacked)")
    ax.set_title(f"GEMM per-stage busy time inside the window — {topo}")
    ax.legend(ncol=5)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gemm_stage_busy.png"), dpi=120)
    print(f"wrote 4 plots to {out}")


if __name__ == "__main__":
    main()
