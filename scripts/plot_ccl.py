#!/usr/bin/python3
"""Plots a ccl-sweep (or allreduce) result: all-reduce latency by cube topology
and buffer kind, each measured curve beside its alpha-beta analytic curve.

    kernbench --bench ccl-sweep --json out/ccl.json
    /usr/bin/python3 scripts/plot_ccl.py out/ccl.json out/ccl

writes out/ccl_latency.png (one panel per topology: every algorithm, TCM
buffers, with the analytic curve dashed) and out/ccl_buffers.png (one panel
per topology: the natural algorithm in TCM, HBM and SRAM, analytic dashed).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NATURAL = {"torus2d": "2d", "mesh": "2d", "ring": "ring"}


def series(points, **match):
    pts = [p for p in points if "skipped" not in p and all(p.get(k) == v for k, v in match.items())]
    pts.sort(key=lambda p: p["bytes_per_pe"])
    return ([p["bytes_per_pe"] / 1024 for p in pts], [p["latency_ns"] / 1000 for p in pts],
            [p["analytic_ns"] / 1000 for p in pts])


def panels(topologies):
    fig, axes = plt.subplots(1, len(topologies), figsize=(5.5 * len(topologies), 4.5),
                             squeeze=False)
    return fig, axes[0]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_ccl.py RESULT.json OUT_PREFIX")
    with open(sys.argv[1]) as f:
        points = json.load(f)["points"]
    prefix = sys.argv[2]
    topologies = [t for t in ("mesh", "ring", "torus2d") if any(p["topology"] == t for p in points)]
    algos = sorted({p["algo"] for p in points})

    # One panel per topology: (label, series filter) curves, analytic dashed.
    def figure(name, curves_of, title_of):
        fig, axes = panels(topologies)
        for ax, topo in zip(axes, topologies):
            for label, match in curves_of(topo):
                x, y, model = series(points, topology=topo, **match)
                if not x:
                    continue
                line, = ax.plot(x, y, marker="o", label=label)
                ax.plot(x, model, linestyle="--", color=line.get_color(), alpha=0.6)
            ax.set_title(title_of(topo))
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("bytes per PE (KiB)")
            ax.set_ylabel("latency (us)")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(prefix + name, dpi=120)

    figure("_latency.png",
           lambda topo: [(a, {"algo": a, "buffer": "tcm"}) for a in algos],
           lambda topo: f"{topo} cube links, TCM buffers (dashed: alpha-beta)")
    figure("_buffers.png",
           lambda topo: [(f"{NATURAL[topo]}, {b}", {"algo": NATURAL[topo], "buffer": b})
                         for b in ("tcm", "hbm", "sram")],
           lambda topo: f"{topo}: {NATURAL[topo]} by buffer kind (dashed: alpha-beta)")
    print(f"wrote {prefix}_latency.png and {prefix}_buffers.png")


if __name__ == "__main__":
    main()
