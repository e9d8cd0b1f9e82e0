#!/usr/bin/python3
"""Plots where the energy of a kernbench result goes.

usage: scripts/plot_energy.py RESULT.json [OUT_DIR] [--format png|pdf|svg] [--dpi N]

    ./build/kernbench --bench llm --param model=llama3_8b --param layers=4 --json out/llm.json
    /usr/bin/python3 scripts/plot_energy.py out/llm.json
    ./build/kernbench --bench gemm-sweep --json out/gemm.json
    /usr/bin/python3 scripts/plot_energy.py out/gemm.json

Writes into OUT_DIR (default: the folder of RESULT.json), FORMAT png by default:
  energy_classes.FORMAT  the whole run's energy by class (gemm, math, hbm, tcm, sram, host
                         memory, link, router, dma, ipcq, cpu), dynamic and static stacked,
                         from the result's `energy`; for an llm result the energy per token
                         and its floor (`energy_floor_j_per_token`) are in the title, with
                         the layers they cover ("2 of 32 layers: not the model's"; after a
                         layer extension the run's total is the simulated layers' and the
                         per token figure the whole model's)
  energy_op_classes.FORMAT  only for an llm result: the energy per token by the op class of
                         the phases that spent it (`j_per_token_by_op_class`: GEMM,
                         attention, all-reduce, norm and elementwise, pipeline hand-over,
                         after a rank's last phase) beside rank 0's time in each class
  energy_points.FORMAT   only when the points of a study carry an `energy` breakdown (gemm,
                         gemm-sweep, allreduce, gqa-decode): each point's total energy (log
                         scale) above its split by class in % (dynamic per class, static as
                         one segment, stacked to 100%)
Every title names the topology with its --set knobs and what ran: an llm result's model,
phase, batch, context and layers; another result's points and the keys that vary.
A sweep.json carries no energy: plot one of its point_NNNN.json results instead.
Needs Debian's python3-matplotlib (scripts/install_deps.sh installs it).
"""
import sys

import kbplot
from kbplot import plt

CLASSES = ["gemm", "math", "hbm", "tcm", "sram", "host_memory", "link", "router", "dma",
           "ipcq", "cpu"]
LABELS = {"host_memory": "host mem", "hbm": "HBM", "tcm": "TCM", "sram": "SRAM",
          "gemm": "GEMM", "math": "MATH", "dma": "DMA", "ipcq": "IPCQ", "cpu": "CPU"}
COLOURS = dict(zip(CLASSES + ["static"], plt.get_cmap("tab20").colors))
POINT_KEYS = ["variant", "strategy", "algo", "buffer", "bytes_per_pe", "case", "S_kv", "batch",
              "context"]


def fmt_w(watts):
    return f"{watts:,.0f} W" if watts >= 100 else f"{watts:.3g} W"


SWEPT_KEYS = ["M", "K", "N"] + POINT_KEYS + ["topology", "p"]


def llm_per_token(metrics):
    """What an llm result's energy per token covers: '' for the whole model simulated,
    ' (2 of 32 layers: not the model's)' or ' (the whole model: 27 of 32 layers extended)'."""
    ext = metrics.get("layer_extension") or {}
    if ext.get("extended"):
        return (f" (the whole model: {ext.get('extended_layers', '?')} of "
                f"{metrics.get('model_layers', '?')} layers extended)")
    note = kbplot.llm_layers_note(metrics)
    return "" if note.startswith("all ") else f" ({note})"


def subject(doc):
    """The line under a figure's title that says what ran: an llm result's model, batch,
    context and layers; another result's points and what varies between them."""
    metrics = doc.get("metrics") or {}
    if doc.get("bench") == "llm" and "layers_simulated" in metrics:
        return kbplot.llm_subject(metrics)
    points = [p for p in doc.get("points", []) if isinstance(p, dict) and not p.get("skipped")]
    swept = kbplot.varying(points, SWEPT_KEYS)
    n = len(points)
    skipped = len(doc.get("points", [])) - n
    return (f"{n} point{'s' if n != 1 else ''} measured"
            + (f" ({skipped} skipped)" if skipped else "")
            + (f", swept: {', '.join(swept)}" if swept else ""))


def run_scope(metrics):
    """What the run's energy (the `energy` section) covers, for an llm result."""
    ext = metrics.get("layer_extension") or {}
    if ext.get("extended"):
        return f"the run ({ext.get('simulated_layers', metrics.get('layers_simulated'))} layers simulated): "
    return "the run: "


def plot_classes(out, energy, title, metrics, what):
    by = energy["by_class"]
    present = [c for c in CLASSES if c in by and by[c]["dynamic_pj"] + by[c]["static_pj"] > 0]
    dyn = [by[c]["dynamic_pj"] for c in present]
    sta = [by[c]["static_pj"] for c in present]
    unit, scale = kbplot.si_energy([d + s for d, s in zip(dyn, sta)])
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    x = list(range(len(present)))
    ax.bar(x, [d / scale for d in dyn], color="#4477aa", label="dynamic")
    ax.bar(x, [s / scale for s in sta], bottom=[d / scale for d in dyn], color="#bbbbbb",
           label="static (leakage over the run)")
    for xi, d, s in zip(x, dyn, sta):
        share = 100.0 * (d + s) / energy["total_pj"] if energy.get("total_pj") else 0
        ax.text(xi, (d + s) / scale, f"{share:.0f}%" if share >= 1 else "<1%", ha="center",
                va="bottom", fontsize=7.5)
    ax.set_xticks(x)
    ax.set_xticklabels([LABELS.get(c, c) for c in present], rotation=30, ha="right")
    ax.set_xlabel("energy class (share of the run's total above each bar)")
    ax.set_ylabel(f"energy ({unit})")
    total = energy["total_pj"]
    tunit, tscale = kbplot.si_energy([total])
    llm = "layers_simulated" in metrics
    sub = ((run_scope(metrics) if llm else "the whole run: ")
           + f"{total / tscale:.3g} {tunit} in {energy['window_ns'] / 1e3:.3g} µs, "
           f"average {fmt_w(energy['average_power_mw'] / 1e3)}")
    if metrics.get("j_per_token") and metrics.get("energy_floor_j_per_token"):
        jt, fl = metrics["j_per_token"] * 1e12, metrics["energy_floor_j_per_token"] * 1e12
        ju, js = kbplot.si_energy([jt])
        fu, fs = kbplot.si_energy([fl])
        sub += (f"\nper token{llm_per_token(metrics)}: {jt / js:.3g} {ju}, {jt / fl:.2f}× "
                f"its floor of {fl / fs:.3g} {fu}\n(the floor: HBM reads + static power over "
                "the roofline bound)")
    ax.set_title(kbplot.wrap(f"{title}: energy by class\n{what}\n{sub}", fig, 9, 0.9),
                 fontsize=9)
    ax.set_ylim(0, max([(d + s) / scale for d, s in zip(dyn, sta)] + [0]) * 1.15)
    ax.legend(frameon=False, loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    fig.tight_layout()
    out.save(fig, "classes")


OP_CLASSES = ["gemm", "attention", "allreduce", "norm_elementwise", "pipeline",
              "after_last_phase"]
OP_LABELS = {"gemm": "GEMM", "allreduce": "all-reduce", "norm_elementwise": "norm and\nelementwise",
             "pipeline": "pipeline\nhand-over", "after_last_phase": "after a rank's\nlast phase"}


def plot_op_classes(out, metrics, title, what):
    by = metrics.get("j_per_token_by_op_class") or {}
    present = [c for c in OP_CLASSES if by.get(c, 0) > 0]
    if not present:
        return
    joules = [by[c] for c in present]
    total = sum(joules)
    time = metrics.get("op_classes_rank0") or {}
    ns = [time.get(c, {}).get("total_ns", 0.0) for c in present]
    unit, scale = kbplot.si_energy([j * 1e12 for j in joules])
    fig, (ax, axt) = plt.subplots(1, 2, figsize=(9.5, 4.2), gridspec_kw={"width_ratios": [3, 2]})
    x = list(range(len(present)))
    ax.bar(x, [j * 1e12 / scale for j in joules], color="#4477aa")
    for xi, j in zip(x, joules):
        ax.text(xi, j * 1e12 / scale, f"{100 * j / total:.0f}%", ha="center", va="bottom",
                fontsize=7.5)
    ax.set_xticks(x)
    ax.set_xticklabels([OP_LABELS.get(c, c) for c in present], fontsize=8)
    ax.set_ylabel(f"energy per token ({unit})")
    ax.set_ylim(0, max(j * 1e12 / scale for j in joules) * 1.15)
    ax.set_title("energy per token by op class\n(each PE charged to its rank's phases)",
                 fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    tot_ns = sum(ns)
    axt.bar(x, [100 * v / tot_ns if tot_ns else 0 for v in ns], color="#bbbbbb")
    axt.set_xticks(x)
    axt.set_xticklabels([OP_LABELS.get(c, c) for c in present], fontsize=7)
    axt.set_ylabel("share of rank 0's phase time (%)")
    axt.set_title("time by op class (rank 0)", fontsize=9)
    axt.grid(axis="y", alpha=0.3)
    axt.set_axisbelow(True)
    fig.suptitle(kbplot.wrap(f"{title}: energy per token{llm_per_token(metrics)} by op class"
                             f"\n{what}", fig, 10), fontsize=10)
    fig.tight_layout()
    out.save(fig, "op_classes")


def point_label(pt):
    parts = []
    if all(k in pt for k in ("M", "K", "N")):
        parts.append(f"{pt['M']}×{pt['K']}×{pt['N']}")
    for k in POINT_KEYS:
        if k in pt:
            v = pt[k]
            if k == "bytes_per_pe" and isinstance(v, (int, float)):
                v = kbplot.fmt_bytes(v)
            elif k in ("case", "S_kv", "batch", "context"):
                v = f"{k} {v}"
            parts.append(str(v))
    return " ".join(parts) or "point"


def plot_points(out, points, title, what):
    """Top: each point's total energy (log scale, points differ by orders of magnitude);
    bottom: its split by class in % of that total, stacked (the parts add up)."""
    pts = [p for p in points if isinstance(p.get("energy"), dict)]
    if not pts:
        return
    totals = [p["energy"]["total_pj"] for p in pts]
    unit, scale = kbplot.si_energy([min(totals)])  # the smallest point reads >= 1
    fig, (top, ax) = plt.subplots(2, 1, figsize=(max(7, 0.36 * len(pts) + 4.5), 6.8),
                                  sharex=True, gridspec_kw={"height_ratios": [1, 1.6]})
    x = list(range(len(pts)))
    top.bar(x, [t / scale for t in totals], color="0.35", width=0.7)
    wide = max(totals) > 300 * min(totals)
    kbplot.log_axis(top.yaxis, subs=(1.0,) if wide else (1.0, 2.0, 5.0))
    top.set_ylim(min(totals) / scale / 2, max(totals) / scale * 2)
    top.set_ylabel(f"total ({unit}, log scale)")
    top.set_title(kbplot.wrap(f"{title}: energy of each point, and its split by class\n{what}",
                              fig, 10, 0.7))
    top.grid(axis="y", alpha=0.3)
    top.set_axisbelow(True)
    bottom = [0.0] * len(pts)
    for c in CLASSES + ["static"]:
        if c == "static":
            vals = [p["energy"]["static_pj"] for p in pts]
        else:
            vals = [p["energy"]["by_class"].get(c, {}).get("dynamic_pj", 0.0) for p in pts]
        vals = [100.0 * v / t if t else 0.0 for v, t in zip(vals, totals)]
        if not any(vals):
            continue
        ax.bar(x, vals, bottom=bottom, color=COLOURS[c], width=0.7,
               label="static (all classes)" if c == "static" else LABELS.get(c, c) + " dynamic")
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylim(0, 100)
    ax.yaxis.set_major_formatter(kbplot.PERCENT)
    ax.set_ylabel("share of the point's energy")
    ax.set_xticks(x)
    ax.set_xticklabels([point_label(p) for p in pts], rotation=45, ha="right", fontsize=7.5)
    ax.set_xlim(-0.6, len(pts) - 0.4)
    ax.set_xlabel("point")
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    out.save(fig, "points")


def main(argv=None):
    args, out = kbplot.parse_args(__doc__, "energy", argv)
    doc = kbplot.load(args.result, "plot_energy.py")
    if "energy" not in doc:
        sys.exit(f"plot_energy.py: {args.result}: no `energy` in this result (a kernbench older "
                 "than energy accounting, or a sweep: plot one of its runs)")
    title = f"{doc.get('bench', '?')} on {kbplot.topology_name(doc)}"
    what = subject(doc)
    plot_classes(out, doc["energy"], title, doc.get("metrics") or {}, what)
    plot_op_classes(out, doc.get("metrics") or {}, title, what)
    plot_points(out, doc.get("points", []), title, what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
