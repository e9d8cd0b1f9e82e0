#!/usr/bin/python3
"""Plots a gqa-sweep (or gqa-long) result: the four long-context decode cases side
by side at every S_kv, in latency, traffic and KV memory per cube.

usage: scripts/plot_gqa.py RESULT.json [OUT_DIR] [--format png|pdf|svg] [--dpi N]

    ./build/kernbench --bench gqa-sweep --json out/gqa.json
    /usr/bin/python3 scripts/plot_gqa.py out/gqa.json

Writes into OUT_DIR (default: the folder of RESULT.json), FORMAT png by default:
  gqa_latency.FORMAT   decode latency per case (µs, log scale), one group of bars per S_kv
  gqa_traffic.FORMAT   per case and S_kv: IPCQ operations (the reduce), DMA transfers (KV
                       streaming) and cube-link bytes (what crosses cubes)
  gqa_memory.FORMAT    KV-cache bytes each cube holds per case (log scale)
The gqa benches report no analytic model, so none is drawn. Needs Debian's
python3-matplotlib (scripts/install_deps.sh installs it).
"""
import sys

import kbplot
from kbplot import plt


def grouped(points, key, scale):
    sizes = sorted({p["S_kv"] for p in points})
    cases = sorted({p["case"] for p in points})
    names = {p["case"]: f'case {p["case"]}: {p["case_name"]}' for p in points}
    value = {(p["case"], p["S_kv"]): p[key] / scale for p in points}
    return sizes, cases, names, value


def bars(ax, points, key, scale=1.0, fmt=None):
    """One group per S_kv, one bar per case, FMT(value) written above each bar."""
    sizes, cases, names, value = grouped(points, key, scale)
    width = 0.8 / len(cases)
    for i, c in enumerate(cases):
        xs = [j + (i - (len(cases) - 1) / 2) * width for j in range(len(sizes))]
        ys = [value.get((c, s), 0) for s in sizes]
        bc = ax.bar(xs, ys, width, label=names[c], color=f"C{c - 1}")
        if fmt:
            ax.bar_label(bc, labels=[fmt(y) for y in ys], fontsize=7, padding=1.5)
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([f"{s:,}" for s in sizes])
    ax.set_xlabel("KV positions S_kv (tokens)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def bytes_unit(values):
    top = max(list(values) + [0])
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if top >= scale:
            return unit, float(scale)
    return "B", 1.0


def legend_below(fig, ax, ncol=4):
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, ncol=ncol, loc="lower center", frameon=False)


def main(argv=None):
    args, out = kbplot.parse_args(__doc__, "gqa", argv)
    doc = kbplot.load(args.result, "plot_gqa.py")
    points = [p for p in doc.get("points", []) if "case" in p and not p.get("skipped")]
    if not points:
        sys.exit("plot_gqa.py: no gqa-long/gqa-sweep points in " + args.result)
    p0 = points[0]
    d_head = (doc.get("params") or {}).get("d_head")
    shape = (f'C={p0["C"]} cubes × P={p0["P"]} PEs per KV head, G={p0["G"]} query heads'
             + (f", d_head={d_head}" if d_head else "") + f" — {kbplot.topology_name(doc)}")
    ncases = len({p["case"] for p in points})

    fig, ax = plt.subplots(figsize=(8, 4.6))
    bars(ax, points, "latency_ns", 1000.0, fmt=lambda v: f"{v:.3g}")
    kbplot.log_axis(ax.yaxis)
    lat = [p["latency_ns"] / 1000.0 for p in points]
    ax.set_ylim(min(lat) / 2, max(lat) * 2)
    ax.set_ylabel("decode latency (µs, log scale)")
    ax.set_title("GQA long-context decode latency per parallelism case\n" + shape)
    legend_below(fig, ax, ncol=min(ncases, 2))
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    out.save(fig, "latency")

    fig, axes = plt.subplots(1, 3, figsize=(13, 4.4))
    bars(axes[0], points, "ipcq_ops")
    axes[0].set_ylabel("IPCQ operations (count)")
    axes[0].set_title("IPCQ operations (the reduce)")
    bars(axes[1], points, "dma_ops")
    kbplot.log_axis(axes[1].yaxis)
    dma = [p["dma_ops"] for p in points if p["dma_ops"] > 0]
    if dma:
        axes[1].set_ylim(min(dma) / 2, max(dma) * 1.5)
    axes[1].set_ylabel("DMA transfers (count, log scale)")
    axes[1].set_title("DMA transfers (KV streaming)")
    unit, scale = bytes_unit(p["cube_link_bytes"] for p in points)
    bars(axes[2], points, "cube_link_bytes", scale, fmt=lambda v: f"{v:.3g}")
    axes[2].set_ylim(0, max([p["cube_link_bytes"] / scale for p in points] + [1]) * 1.12)
    axes[2].set_ylabel(f"cube-link bytes ({unit})")
    axes[2].set_title("bytes over the cube links")
    fig.suptitle("GQA long-context decode traffic per parallelism case — " + shape,
                 fontsize=10)
    legend_below(fig, axes[0])
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    out.save(fig, "traffic")

    fig, ax = plt.subplots(figsize=(8, 4.6))
    bars(ax, points, "kv_bytes_per_cube", fmt=kbplot.fmt_bytes)
    kbplot.bytes_axis(ax.yaxis)
    kv = [p["kv_bytes_per_cube"] for p in points]
    ax.set_ylim(min(kv) / 2, max(kv) * 2)
    ax.set_ylabel("KV cache per cube (bytes, log scale)")
    ax.set_title("KV memory per cube per parallelism case\n" + shape)
    legend_below(fig, ax, ncol=min(ncases, 2))
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    out.save(fig, "memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
