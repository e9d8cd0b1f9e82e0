#!/usr/bin/python3
"""Plots where the energy of a kernbench result goes.

    kernbench --bench gemm-sweep --json out/gemm.json
    /usr/bin/python3 scripts/plot_energy.py out/gemm.json out/gemm
    kernbench --bench llm --param layers=2 --json out/llm.json
    /usr/bin/python3 scripts/plot_energy.py out/llm.json out/llm

writes PREFIX_energy_classes.png: the whole run's energy by class (gemm, math,
hbm, tcm, sram, host memory, link, router, dma, ipcq, cpu), dynamic and static
stacked, from the result's `energy`; and, when the points of a study carry an
`energy` breakdown (gemm, gemm-sweep, allreduce, gqa-decode, llm), also
PREFIX_energy_points.png: each point's energy by class, stacked, with static
energy as one segment. Both are also written as PDF.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CLASSES = ["gemm", "math", "hbm", "tcm", "sram", "host_memory", "link", "router", "dma",
           "ipcq", "cpu"]
LABELS = {"host_memory": "host mem"}
COLOURS = dict(zip(CLASSES + ["static"], plt.get_cmap("tab20").colors))
POINT_KEYS = ["variant", "algo", "buffer", "bytes_per_pe", "M", "K", "N", "S_kv", "batch",
              "context"]


def unit_of(values_pj):
    """The SI unit that keeps the largest value between 1 and 1000, and its scale."""
    top = max([abs(v) for v in values_pj] + [0.0])
    for unit, scale in (("J", 1e12), ("mJ", 1e9), ("uJ", 1e6), ("nJ", 1e3)):
        if top >= scale:
            return unit, scale
    return "pJ", 1.0


def save(fig, prefix, name):
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(f"{prefix}_{name}.{ext}", dpi=150)
    plt.close(fig)
    print(f"wrote {prefix}_{name}.png")


def plot_classes(energy, prefix, title):
    by = energy["by_class"]
    present = [c for c in CLASSES if by[c]["dynamic_pj"] + by[c]["static_pj"] > 0]
    dyn = [by[c]["dynamic_pj"] for c in present]
    sta = [by[c]["static_pj"] for c in present]
    unit, scale = unit_of([d + s for d, s in zip(dyn, sta)])
    fig, ax = plt.subplots(figsize=(7, 3.8))
    x = range(len(present))
    ax.bar(x, [d / scale for d in dyn], color="#4477aa", label="dynamic")
    ax.bar(x, [s / scale for s in sta], bottom=[d / scale for d in dyn], color="#bbbbbb",
           label="static")
    ax.set_xticks(list(x))
    ax.set_xticklabels([LABELS.get(c, c) for c in present], rotation=30, ha="right")
    ax.set_ylabel(f"energy ({unit})")
    total = energy["total_pj"]
    tunit, tscale = unit_of([total])
    ax.set_title(f"{title}: {total / tscale:.3g} {tunit} in {energy['window_ns'] / 1e3:.3g} us, "
                 f"average {energy['average_power_mw'] / 1e3:.3g} W")
    ax.legend(frameon=False)
    save(fig, prefix, "energy_classes")


def point_label(pt):
    parts = []
    for k in POINT_KEYS:
        if k in pt:
            v = pt[k]
            if k == "bytes_per_pe" and isinstance(v, int):
                v = f"{v // 1024}KiB" if v % 1024 == 0 else str(v)
            parts.append(str(v))
    return " ".join(parts) or "point"


def plot_points(points, prefix, title):
    pts = [p for p in points if isinstance(p.get("energy"), dict)]
    if not pts:
        return
    totals = [p["energy"]["total_pj"] for p in pts]
    unit, scale = unit_of(totals)
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(pts) + 3), 4.2))
    x = list(range(len(pts)))
    bottom = [0.0] * len(pts)
    for c in CLASSES + ["static"]:
        if c == "static":
            vals = [p["energy"]["static_pj"] / scale for p in pts]
        else:
            vals = [p["energy"]["by_class"][c]["dynamic_pj"] / scale for p in pts]
        if not any(vals):
            continue
        ax.bar(x, vals, bottom=bottom, color=COLOURS[c], label=LABELS.get(c, c))
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(x)
    ax.set_xticklabels([point_label(p) for p in pts], rotation=40, ha="right", fontsize=8)
    ax.set_ylabel(f"energy per point ({unit})")
    ax.set_title(f"{title}: energy of each point by class")
    ax.legend(frameon=False, fontsize=8, ncol=2)
    save(fig, prefix, "energy_points")


def main(argv):
    if len(argv) != 3:
        print("usage: plot_energy.py RESULT.json OUT_PREFIX", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        doc = json.load(f)
    if "energy" not in doc:
        print(f"{argv[1]}: no `energy` in this result (a kernbench older than energy "
              "accounting, or a sweep: plot one of its runs)", file=sys.stderr)
        return 2
    title = f"{doc['bench']} on {doc['topology']['name']}"
    plot_classes(doc["energy"], argv[2], title)
    plot_points(doc.get("points", []), argv[2], doc["bench"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
