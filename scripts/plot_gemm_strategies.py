#!/usr/bin/python3
"""Plots of the GEMM issue strategies from a `kernbench --bench gemm-strategies --json FILE`
result: one composite command vs primitive single-op commands (async-full, async-tiled).

usage: scripts/plot_gemm_strategies.py RESULT.json [OUT_DIR] [--format png|pdf|svg] [--dpi N]

    ./build/kernbench --bench gemm-strategies --json out/strategies.json
    /usr/bin/python3 scripts/plot_gemm_strategies.py out/strategies.json

Writes into OUT_DIR (default: the folder of RESULT.json), FORMAT png by default:
  gemm_strategies_tflops.FORMAT    TFLOP/s per PE of each strategy across K (M = N = 32), one
                                   panel per variant, the composite's analytic model dotted
                                   and the PE's peak dashed
  gemm_strategies_dispatch.FORMAT  PE_CPU dispatch time inside the window by command kind, as a
                                   share of the window, per strategy and K (M = N = 32), one
                                   panel per variant; the window is written above each bar
  gemm_strategies_window.FORMAT    the window split by what the GEMM engine did: busy, idle
                                   while PE_CPU dispatches (CPU-bound), idle otherwise (data,
                                   dependencies, fill and drain); one panel per shape, every
                                   variant and strategy in it, the window relative to the
                                   composite's above each bar
Needs Debian's python3-matplotlib (scripts/install_deps.sh installs it).
"""
import math
import sys

import kbplot
from kbplot import plt

VARIANTS = ["load_ref", "ref_ref", "load_load"]
STRATEGIES = ["composite", "async-full", "async-tiled"]
SHORT = {"composite": "comp.", "async-full": "full", "async-tiled": "tiled"}
KINDS = ["Composite", "DmaRead", "Gemm", "Math", "DmaWrite"]
MARKERS = {"composite": "o", "async-full": "s", "async-tiled": "^"}


def load(path):
    doc = kbplot.load(path, "plot_gemm_strategies.py")
    if doc.get("bench") != "gemm-strategies":
        sys.exit(f"{path}: not a gemm-strategies result (bench = {doc.get('bench')!r})")
    every = [p for p in doc.get("points", []) if "strategy" in p]
    points = [p for p in every if not p.get("skipped")]
    if not points:
        sys.exit(f"{path}: no measured points")
    return doc, every, points


def shape_label(p):
    return f"{p['M']}×{p['K']}×{p['N']}"


def k_sweep(points, variant):
    """The M = N = 32 points of one variant, by strategy, sorted by K."""
    out = {}
    for s in STRATEGIES:
        out[s] = sorted((p for p in points if p["variant"] == variant and p["strategy"] == s
                         and p["M"] == 32 and p["N"] == 32), key=lambda p: p["K"])
    return out


def peak_tflops(points):
    vals = [p["tflops_per_pe"] / p["mac_util"] for p in points if p.get("mac_util")]
    return sum(vals) / len(vals) if vals else None


def plot_tflops(out, points, variants, title):
    peak = peak_tflops(points)
    fig, axes = plt.subplots(1, len(variants), figsize=(3.6 * len(variants) + 0.6, 3.9),
                             squeeze=False, sharey=True)
    ks = sorted({p["K"] for p in points if p["M"] == 32 and p["N"] == 32})
    for ax, v in zip(axes[0], variants):
        sweep = k_sweep(points, v)
        for s, pts in sweep.items():
            if pts:
                ax.plot([p["K"] for p in pts], [p["tflops_per_pe"] for p in pts],
                        marker=MARKERS[s], label=s, color=f"C{STRATEGIES.index(s)}")
        comp = [p for p in sweep["composite"] if p.get("window_ns_analytic")]
        if comp:
            ax.plot([p["K"] for p in comp],
                    [p["tflops_per_pe"] * p["window_ns"] / p["window_ns_analytic"] for p in comp],
                    linestyle=":", color="C0", label="composite, analytic model")
        if peak:
            ax.axhline(peak, color="gray", linestyle="--", linewidth=0.9,
                       label=f"peak {peak:.3g} TFLOP/s")
        ax.set_xscale("log", base=2)
        ax.set_xticks(ks)
        ax.xaxis.set_major_formatter(kbplot.PLAIN)
        ax.xaxis.set_minor_formatter(kbplot.NullFormatter())
        ax.set_xlabel("K (M = N = 32, fp16)")
        ax.set_title(f"variant {v}")
        ax.set_ylim(0, (peak or 8) * 1.08)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("throughput (TFLOP/s per PE)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, ncol=len(labels), loc="lower center", frameon=False)
    fig.suptitle(f"GEMM issue strategies: throughput across K — {title}")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    out.save(fig, "tflops")


def plot_dispatch(out, points, variants, title):
    """PE_CPU dispatch time by command kind, % of the window, per strategy and K."""
    height = 2.5 * len(variants) + 1.1
    fig, axes = plt.subplots(len(variants), 1, figsize=(9, height),
                             squeeze=False, sharey=True)
    kinds_seen = set()
    top = 0.0
    for ax, v in zip(axes[:, 0], variants):
        sweep = k_sweep(points, v)
        ks = sorted({p["K"] for pts in sweep.values() for p in pts})
        xs, ticks, groups = [], [], []
        x = 0.0
        for k in ks:
            first = x
            for s in STRATEGIES:
                p = next((q for q in sweep[s] if q["K"] == k), None)
                if p is None:
                    continue
                bottom = 0.0
                for kind in KINDS:
                    val = 100.0 * p.get("dispatch_ns_by_kind", {}).get(kind, 0.0) / p["window_ns"]
                    if val <= 0:
                        continue
                    ax.bar(x, val, 0.8, bottom=bottom, color=f"C{KINDS.index(kind)}")
                    kinds_seen.add(kind)
                    bottom += val
                top = max(top, bottom)
                unit, scale = kbplot.si_time([p["window_ns"]])
                ax.text(x, bottom + 2, f"{p['window_ns'] / scale:.3g}\n{unit}", ha="center",
                        va="bottom", fontsize=6.5, linespacing=0.95)
                xs.append(x)
                ticks.append(SHORT[s])
                x += 1
            groups.append(((first + x - 1) / 2, k))
            x += 0.7  # gap between K groups
        ax.set_xticks(xs)
        ax.set_xticklabels(ticks, fontsize=7.5)
        for gx, k in groups:
            ax.annotate(f"K = {k}", (gx, 0), xycoords=("data", "axes fraction"),
                        xytext=(0, -22), textcoords="offset points", ha="center", va="top",
                        fontsize=8.5)
        ax.set_xlim(-0.7, x - 0.5)
        ax.yaxis.set_major_formatter(kbplot.PERCENT)
        ax.set_ylabel("dispatch (% of window)")
        ax.set_title(f"variant {v} (M = N = 32)", loc="left", fontsize=9, pad=3)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    axes[0][0].set_ylim(0, min(100.0, top) * 1.25 + 5)  # shared: room for the labels
    handles = [plt.Rectangle((0, 0), 1, 1, color=f"C{KINDS.index(k)}") for k in KINDS
               if k in kinds_seen]
    fig.legend(handles, [k for k in KINDS if k in kinds_seen], ncol=len(handles),
               loc="upper center", bbox_to_anchor=(0.5, 1 - 0.32 / height), frameon=False,
               title="PE_CPU dispatch time by command kind (window above each bar)",
               title_fontsize=8)
    fig.suptitle(f"GEMM issue strategies: PE_CPU dispatch inside the window — {title}")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.85 / height), h_pad=2.2)
    out.save(fig, "dispatch")


def plot_window(out, every, points, title):
    """Small multiples: one panel per shape, every variant x strategy in it."""
    shapes = []
    for p in every:
        if shape_label(p) not in shapes:
            shapes.append(shape_label(p))
    variants = [v for v in VARIANTS if any(p["variant"] == v for p in every)]
    ncols = min(4, len(shapes) + 1)
    nrows = math.ceil((len(shapes) + 1) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.3 * ncols, 3.1 * nrows + 0.4),
                             squeeze=False, sharey=True)
    parts = [("gemm_busy_ns", "GEMM busy", "C2"),
             ("cpu_bound_ns", "GEMM idle, PE_CPU dispatching (CPU-bound)", "C3"),
             ("gemm_idle_other_ns", "GEMM idle, other (data, dependencies, fill, drain)", "C7")]
    flat = list(axes.flat)
    for ax, shape in zip(flat, shapes):
        xs, ticks, groups = [], [], []
        x = 0.0
        for v in variants:
            first = x
            for s in STRATEGIES:
                here = [q for q in every if shape_label(q) == shape and q["variant"] == v
                        and q["strategy"] == s]
                if not here:
                    continue
                p = here[0]
                if p.get("skipped"):
                    ax.text(x, 3, "skipped", rotation=90, ha="center", va="bottom", fontsize=7,
                            color="0.4")
                else:
                    bottom = 0.0
                    for key, _name, colour in parts:
                        val = 100.0 * p[key] / p["window_ns"]
                        ax.bar(x, val, 0.8, bottom=bottom, color=colour)
                        bottom += val
                    rel = p.get("window_vs_composite")
                    if rel is not None:
                        ax.text(x, 102, f"{rel:.2g}", ha="center", va="bottom", fontsize=6.5)
                xs.append(x)
                ticks.append(SHORT[s])
                x += 1
            groups.append(((first + x - 1) / 2, v))
            x += 0.6
        ax.set_xticks(xs)
        ax.set_xticklabels(ticks, rotation=90, fontsize=7)
        for gx, v in groups:
            ax.annotate(v, (gx, 0), xycoords=("data", "axes fraction"), xytext=(0, -30),
                        textcoords="offset points", ha="center", va="top", fontsize=7.5)
        ax.set_xlim(-0.7, x - 0.3)
        ax.set_ylim(0, 112)
        ax.set_yticks([0, 25, 50, 75, 100])
        ax.yaxis.set_major_formatter(kbplot.PERCENT)
        ax.set_title(f"{shape}", fontsize=9.5)
    for ax in axes[:, 0]:
        ax.set_ylabel("share of the window (%)")
    for ax in flat[len(shapes):]:
        ax.axis("off")
    legend_ax = flat[len(shapes)]
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for _, _, c in parts]
    legend_ax.legend(handles, [n.replace(" (", "\n(") for _, n, _ in parts], loc="center",
                     frameon=False, fontsize=8)
    legend_ax.text(0.5, 0.1, "above each bar: the window over the\ncomposite's (same shape "
                   "and variant)\ncomp. = composite, full = async-full,\n"
                   "tiled = async-tiled", ha="center", va="center", fontsize=7.5,
                   transform=legend_ax.transAxes)
    fig.suptitle(f"GEMM engine over the window, per shape M × K × N (fp16) — {title}")
    fig.tight_layout(h_pad=2.5)
    out.save(fig, "window")


def main(argv=None):
    args, out = kbplot.parse_args(__doc__, "gemm_strategies", argv)
    doc, every, points = load(args.result)
    sync = doc.get("metrics", {}).get("sync", "?")
    title = f"{kbplot.topology_name(doc)}, sync={sync}"
    variants = [v for v in VARIANTS if any(p["variant"] == v for p in points)]
    plot_tflops(out, points, variants, title)
    plot_dispatch(out, points, variants, title)
    plot_window(out, every, points, title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
