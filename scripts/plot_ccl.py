#!/usr/bin/python3
"""Plots a ccl-sweep (or allreduce) result: all-reduce latency by cube topology and
buffer kind, each measured curve beside its analytic model (platform/analytic/allreduce_model.h).

usage: scripts/plot_ccl.py RESULT.json [OUT_DIR] [--format png|pdf|svg] [--dpi N]

    ./build/kernbench --bench ccl-sweep --json out/ccl.json
    /usr/bin/python3 scripts/plot_ccl.py out/ccl.json

Writes into OUT_DIR (default: the folder of RESULT.json), FORMAT png by default:
  ccl_latency.FORMAT   one panel per cube topology: latency vs bytes per PE of every
                       algorithm with TCM buffers, measured (solid) and the all-reduce
                       model (`analytic_ns`, dashed)
  ccl_buffers.FORMAT   one panel per cube topology: the topology's natural algorithm (2d on
                       a mesh or torus, ring on a ring) with TCM, HBM and SRAM buffers,
                       measured (solid) and the model (dashed; it prices the staging of
                       HBM/SRAM buffers through the TCM as well as the links)
Sizes that do not fit a buffer are reported as skipped by the bench and left out.
Needs Debian's python3-matplotlib (scripts/install_deps.sh installs it).
"""
import sys

import kbplot
from kbplot import plt
from matplotlib.lines import Line2D

NATURAL = {"torus2d": "2d", "mesh": "2d", "ring": "ring"}
ALGOS = ["ring", "ring_bidir", "2d", "hierarchical", "chain", "binomial"]
BUFFERS = ["tcm", "hbm", "sram"]
BUFFER_COLOURS = ["C0", "C3", "C8"]


def series(points, **match):
    pts = [p for p in points if all(p.get(k) == v for k, v in match.items())]
    pts.sort(key=lambda p: p["bytes_per_pe"])
    return ([p["bytes_per_pe"] for p in pts], [p["latency_ns"] / 1000 for p in pts],
            [p["analytic_ns"] / 1000 if p.get("analytic_ns") else None for p in pts])


def natural(topo, algos):
    want = NATURAL.get(topo, "ring")
    return want if want in algos else algos[0]


def main(argv=None):
    args, out = kbplot.parse_args(__doc__, "ccl", argv)
    doc = kbplot.load(args.result, "plot_ccl.py")
    points = [p for p in doc.get("points", [])
              if "algo" in p and "skipped" not in p and not p.get("skipped")]
    if not points:
        sys.exit("plot_ccl.py: no measured all-reduce points in " + args.result)
    for p in points:
        p.setdefault("topology", "?")
    topologies = ([t for t in ("mesh", "ring", "torus2d") if any(p["topology"] == t for p in points)]
                  + sorted({p["topology"] for p in points} - {"mesh", "ring", "torus2d"}))
    algos = [a for a in ALGOS if any(p["algo"] == a for p in points)]
    algos += sorted({p["algo"] for p in points} - set(algos))
    ps = sorted({p.get("p") for p in points if p.get("p")})
    who = f"{'/'.join(str(x) for x in ps)} PEs" if ps else ""
    title_tail = f"{kbplot.topology_name(doc)}" + (f", {who}" if who else "")

    # One panel per topology: (label, colour, series filter) curves, analytic dashed.
    def figure(what, curves_of, title_of, suptitle):
        fig, axes = plt.subplots(1, len(topologies), figsize=(max(7.5, 4.3 * len(topologies) + 0.5), 4.2),
                                 squeeze=False, sharey=True)
        labels, xs_all, ys_all = {}, [], []
        for ax, topo in zip(axes[0], topologies):
            for label, colour, match in curves_of(topo):
                x, y, model = series(points, topology=topo, **match)
                if not x:
                    continue
                ax.plot(x, y, marker="o", markersize=4, color=colour, label=label)
                labels[label] = colour
                xs_all += x
                ys_all += y + [m for m in model if m is not None]
                mx = [a for a, m in zip(x, model) if m is not None]
                if mx:
                    ax.plot(mx, [m for m in model if m is not None], linestyle="--",
                            color=colour, alpha=0.7, linewidth=1.2)
            ax.set_title(title_of(topo))
            ax.set_xlabel("vector size per PE")
            ax.grid(True, which="major", alpha=0.3)
            for tick in ax.get_xticklabels():
                tick.set_rotation(30)
                tick.set_ha("right")
        if not ys_all:  # e.g. every TCM point skipped: nothing this figure draws
            plt.close(fig)
            print(f"plot_ccl.py: no ccl_{what} figure: none of its points was measured "
                  f"(skipped: see the result's \"skipped\" fields)")
            return
        for ax in axes[0]:
            kbplot.bytes_axis(ax.xaxis, xs_all)
            kbplot.log_axis(ax.yaxis)
            ax.set_ylim(min(ys_all) / 1.4, max(ys_all) * 1.4)
        axes[0][0].set_ylabel("all-reduce latency (µs, log scale)")
        handles = [Line2D([], [], color=c, marker="o", markersize=4, label=lab)
                   for lab, c in labels.items()]
        handles += [Line2D([], [], color="black", label="measured"),
                    Line2D([], [], color="black", linestyle="--", label="model")]
        fig.legend(handles=handles, ncol=len(handles), loc="lower center", frameon=False)
        fig.suptitle(kbplot.wrap(suptitle, fig, 11))
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        out.save(fig, what)

    figure("latency",
           lambda topo: [(a, f"C{ALGOS.index(a) if a in ALGOS else i}", {"algo": a, "buffer": "tcm"})
                        for i, a in enumerate(algos)],
           lambda topo: f"{topo} cube links",
           f"All-reduce latency by algorithm, TCM buffers — {title_tail}")
    figure("buffers",
           lambda topo: [(f"{b.upper()} buffers", BUFFER_COLOURS[i],
                          {"algo": natural(topo, algos), "buffer": b})
                         for i, b in enumerate(BUFFERS)],
           lambda topo: f"{topo} cube links: {natural(topo, algos)}",
           f"All-reduce latency by buffer kind, the topology's natural algorithm "
           f"— {title_tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
