#!/usr/bin/python3
"""Plots a gqa-sweep (or gqa-long) result: the four long-context decode cases
side by side at every S_kv, in latency, traffic and KV memory per cube.

    kernbench --bench gqa-sweep --json out/gqa.json
    /usr/bin/python3 scripts/plot_gqa.py out/gqa.json out/gqa

writes out/gqa_latency.png (latency per case, one group of bars per S_kv),
out/gqa_traffic.png (IPCQ and DMA operations per case) and
out/gqa_memory.png (KV bytes per cube per case).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def grouped(points, key, scale):
    sizes = sorted({p["S_kv"] for p in points})
    cases = sorted({p["case"] for p in points})
    names = {p["case"]: f'{p["case"]}: {p["case_name"]}' for p in points}
    value = {(p["case"], p["S_kv"]): p[key] / scale for p in points}
    return sizes, cases, names, value


def bars(ax, points, key, scale, ylabel, log=False):
    sizes, cases, names, value = grouped(points, key, scale)
    width = 0.8 / len(cases)
    for i, c in enumerate(cases):
        xs = [j + i * width for j in range(len(sizes))]
        ax.bar(xs, [value.get((c, s), 0) for s in sizes], width, label=names[c])
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(sizes))])
    ax.set_xticklabels([f"S_kv={s}" for s in sizes])
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.grid(axis="y", alpha=0.3)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_gqa.py RESULT.json OUT_PREFIX")
    with open(sys.argv[1]) as f:
        points = json.load(f)["points"]
    if not points or "case" not in points[0]:
        sys.exit("plot_gqa.py: no gqa-long/gqa-sweep points in " + sys.argv[1])
    prefix = sys.argv[2]
    shape = f'C={points[0]["C"]} cubes x P={points[0]["P"]} PEs, G={points[0]["G"]}'

    fig, ax = plt.subplots(figsize=(8, 4.5))
    bars(ax, points, "latency_ns", 1000.0, "latency (us)", log=True)
    ax.set_title("GQA long-context decode latency, " + shape)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(prefix + "_latency.png", dpi=120)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    bars(axes[0], points, "ipcq_ops", 1.0, "IPCQ operations")
    axes[0].set_title("IPCQ operations (reduce traffic)")
    bars(axes[1], points, "dma_ops", 1.0, "DMA transfers", log=True)
    axes[1].set_title("DMA transfers (KV streaming)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(prefix + "_traffic.png", dpi=120)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    bars(ax, points, "kv_bytes_per_cube", float(1 << 20), "KV per cube (MiB)", log=True)
    ax.set_title("KV memory per cube, " + shape)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(prefix + "_memory.png", dpi=120)
    print("wrote", prefix + "_latency.png,", prefix + "_traffic.png,", prefix + "_memory.png")


if __name__ == "__main__":
    main()
