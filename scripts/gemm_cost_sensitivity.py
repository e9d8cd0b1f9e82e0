#!/usr/bin/python3
"""Cost-model sensitivity of the GEMM issue strategies.

usage: scripts/gemm_cost_sensitivity.py [--kernbench PATH] [--out DIR] [--jobs N]
           [--topology FILE] [--shapes S] [--variants V] [--sync wait,nowait] [--no-reference]

Reruns `kernbench --bench gemm-strategies` (composite vs async-full vs async-tiled)
at every PE_CPU cost configuration

    pe.cost_model.fixed_per_single_op_cmd_cycles in {8, 40}
  x pe.cost_model.per_byte_cycles                in {0.25, 0.0625, 0.03125}

plus, unless --no-reference, a reference with free dispatch (every FIXED and R at 0),
which separates what the single-op kernels lose to dispatch from what they lose to
the engines. A topology knob needs its own elaboration, so each configuration (and
each --sync mode) is one kernbench process (SystemC elaborates once per process); --jobs of them run at a time.

Writes into OUT (default ./gemm_cost_sensitivity):
  gemm_cost_sensitivity.json   every point of every run, tagged with its configuration
  gemm_cost_sensitivity.txt    the tables printed on stdout
  gemm_cost_sensitivity.png    async / composite window across K per configuration
Needs Debian's python3-matplotlib for the plot (scripts/install_deps.sh installs it).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

FIXED = [8, 40]
PER_BYTE = [0.25, 0.0625, 0.03125]
DEFAULT_SHAPES = "32x64x32,32x256x32,32x1024x32,32x3072x32,128x1024x128,256x256x256"
CATCH_UP = 1.05  # async within 5 % of the composite's window
FALL_BEHIND = 1.5  # async 50 % or more slower

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def configs(reference):
    out = [{"label": f"F{f}/R{r:g}", "fixed": f, "per_byte": r,
            "set": [f"pe.cost_model.fixed_per_single_op_cmd_cycles={f}",
                    f"pe.cost_model.per_byte_cycles={r}"]}
           for f in FIXED for r in PER_BYTE]
    if reference:
        out.append({"label": "free", "fixed": 0, "per_byte": 0,
                    "set": ["pe.cost_model.fixed_per_single_op_cmd_cycles=0",
                            "pe.cost_model.fixed_per_composite_cycles=0",
                            "pe.cost_model.per_byte_cycles=0"]})
    return out


def run_one(args, cfg, sync, tmp):
    path = os.path.join(tmp, f"{cfg['label'].replace('/', '_')}_{sync}.json")
    cmd = [args.kernbench, "--bench", "gemm-strategies", "--quiet", "--json", path,
           "--param", f"shapes={args.shapes}", "--param", f"variants={args.variants}",
           "--param", "strategies=composite,async-full,async-tiled", "--param", f"sync={sync}"]
    if args.topology:
        cmd += ["--topology", args.topology]
    for s in cfg["set"]:
        cmd += ["--set", s]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"kernbench failed ({proc.returncode}) for {cfg['label']} sync={sync}:\n"
                 f"{' '.join(cmd)}\n{proc.stderr}")
    with open(path) as f:
        doc = json.load(f)
    points = []
    for p in doc["points"]:
        p = dict(p)
        p.update({"config": cfg["label"], "fixed_per_single_op_cmd_cycles": cfg["fixed"],
                  "per_byte_cycles": cfg["per_byte"], "sync": sync})
        points.append(p)
    return doc, points


def shape_key(p):
    return (p["M"], p["K"], p["N"])


def shape_label(k):
    return f"{k[0]}x{k[1]}x{k[2]}"


def ratio_table(points, cfgs, sync, variant, strategy):
    """Rows: configurations; columns: shapes; cells: async window / composite window."""
    shapes = sorted({shape_key(p) for p in points if not p.get("skipped")},
                    key=lambda k: (k[0] * k[2], k[1]))
    cell = {}
    for p in points:
        if (p["sync"], p["variant"], p["strategy"]) == (sync, variant, strategy) \
                and "window_vs_composite" in p:
            cell[(p["config"], shape_key(p))] = p["window_vs_composite"]
    head = f"{'config':<12}" + "".join(f"{shape_label(s):>14}" for s in shapes)
    lines = [head, "-" * len(head)]
    for c in cfgs:
        row = f"{c['label']:<12}"
        for s in shapes:
            v = cell.get((c["label"], s))
            row += f"{(f'{v:.2f}x' if v is not None else '-'):>14}"
        lines.append(row)
    return lines, cell, shapes


def summary(points, cfgs, syncs, variants):
    out = []
    for sync in syncs:
        for variant in variants:
            for strategy in ("async-tiled", "async-full"):
                lines, cell, shapes = ratio_table(points, cfgs, sync, variant, strategy)
                out.append(f"\n{strategy} window / composite window -- sync={sync}, {variant}")
                out += ["  " + ln for ln in lines]
                if strategy != "async-tiled":
                    continue
                near = [f"{c}@{shape_label(s)} ({v:.2f}x)" for (c, s), v in sorted(cell.items())
                        if v <= CATCH_UP]
                ranked = sorted(cell.items(), key=lambda kv: kv[1])
                out.append(f"  catches up (<= {CATCH_UP:.2f}x): " + (", ".join(near) or "nowhere"))
                if ranked:
                    (c0, s0), v0 = ranked[0]
                    (c1, s1), v1 = ranked[-1]
                    out.append(f"  closest {c0}@{shape_label(s0)} ({v0:.2f}x), furthest "
                               f"{c1}@{shape_label(s1)} ({v1:.2f}x); >= {FALL_BEHIND:.1f}x at "
                               f"{sum(v >= FALL_BEHIND for v in cell.values())} of {len(cell)} "
                               f"points")
    # The headline point of the issue, with the dispatch figures beside the windows.
    out.append("\n32x3072x32 load_ref: windows and PE_CPU dispatch (ns), commands")
    head = (f"  {'sync':<7}{'config':<12}{'composite':>11}{'async-tiled':>13}{'ratio':>8}"
            f"{'dispatch':>10}{'cmds':>6}{'ns/cmd':>8}{'cpu_bound':>11}{'starved':>9}")
    out += [head, "  " + "-" * (len(head) - 2)]
    for sync in syncs:
        for c in cfgs:
            sel = {p["strategy"]: p for p in points
                   if p["sync"] == sync and p["config"] == c["label"] and p["variant"] == "load_ref"
                   and shape_key(p) == (32, 3072, 32) and not p.get("skipped")}
            if "composite" not in sel or "async-tiled" not in sel:
                continue
            a, comp = sel["async-tiled"], sel["composite"]
            out.append(f"  {sync:<7}{c['label']:<12}{comp['window_ns']:>11.1f}"
                       f"{a['window_ns']:>13.1f}"
                       f"{a['window_ns'] / comp['window_ns']:>7.2f}x{a['dispatch_ns']:>10.1f}"
                       f"{a['commands']:>6}{a['cost_per_command_ns']:>8.3f}"
                       f"{a['cpu_bound_ns']:>11.1f}{a['cpu_starved_ns']:>9.1f}")
    return out


def plot(points, cfgs, syncs, variants, path, topo):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(syncs), len(variants), figsize=(4.6 * len(variants),
                             3.6 * len(syncs)), squeeze=False, sharey="row")
    for i, sync in enumerate(syncs):
        for j, variant in enumerate(variants):
            ax = axes[i][j]
            for c in cfgs:
                xs, ys = [], []
                for p in sorted(points, key=lambda p: p["K"]):
                    if (p["sync"], p["variant"], p["strategy"], p["config"]) == \
                            (sync, variant, "async-tiled", c["label"]) and p["M"] == 32 \
                            and p["N"] == 32 and "window_vs_composite" in p:
                        xs.append(p["K"])
                        ys.append(p["window_vs_composite"])
                style = "--" if c["label"] == "free" else "-"
                ax.plot(xs, ys, style, marker="o", label=c["label"])
            ax.axhline(1.0, color="gray", linewidth=0.8)
            ax.set_xscale("log", base=2)
            ax.set_title(f"sync={sync}, {variant}", fontsize=9)
            ax.set_xlabel("K (M = N = 32)")
            if j == 0:
                ax.set_ylabel("async-tiled / composite window")
    axes[0][-1].legend(fontsize=7, title="FIXED/R", title_fontsize=7)
    fig.suptitle(f"GEMM issue strategies: cost-model sensitivity ({topo})", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernbench", default=os.environ.get("KERNBENCH",
                                                          os.path.join(ROOT, "build", "kernbench")))
    ap.add_argument("--out", default="gemm_cost_sensitivity")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--topology")
    ap.add_argument("--shapes", default=DEFAULT_SHAPES)
    ap.add_argument("--variants", default="load_ref,ref_ref,load_load")
    ap.add_argument("--sync", default="wait,nowait")
    ap.add_argument("--no-reference", action="store_true",
                    help="skip the free-dispatch reference configuration")
    args = ap.parse_args()
    if not os.access(args.kernbench, os.X_OK):
        sys.exit(f"no kernbench at {args.kernbench} (build it, or pass --kernbench / $KERNBENCH)")
    syncs = [s for s in args.sync.split(",") if s]
    variants = [v for v in args.variants.split(",") if v]
    cfgs = configs(not args.no_reference)
    os.makedirs(args.out, exist_ok=True)

    with tempfile.TemporaryDirectory(dir=args.out) as tmp:
        jobs = [(c, s) for c in cfgs for s in syncs]
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(lambda cs: run_one(args, cs[0], cs[1], tmp), jobs))
    points = [p for _, pts in results for p in pts]
    topo = results[0][0].get("topology", {}).get("name", "?")
    merged = {"study": "gemm-cost-sensitivity", "topology": results[0][0].get("topology"),
              "configs": [{k: c[k] for k in ("label", "fixed", "per_byte", "set")} for c in cfgs],
              "sync": syncs, "shapes": args.shapes, "variants": variants, "points": points}
    with open(os.path.join(args.out, "gemm_cost_sensitivity.json"), "w") as f:
        json.dump(merged, f, indent=1, sort_keys=True)
    text = [f"GEMM issue strategies, cost-model sensitivity on {topo} "
            f"({len(jobs)} kernbench runs; FIXED = single-op fixed cycles, R = cycles per "
            f"logical byte; 'free' = every dispatch cost at 0)"]
    text += summary(points, cfgs, syncs, variants)
    with open(os.path.join(args.out, "gemm_cost_sensitivity.txt"), "w") as f:
        f.write("\n".join(text) + "\n")
    print("\n".join(text))
    try:
        plot(points, cfgs, syncs, variants,
             os.path.join(args.out, "gemm_cost_sensitivity.png"), topo)
        print(f"\nwrote {args.out}/gemm_cost_sensitivity.{{json,txt,png}}")
    except ImportError:
        print(f"\nwrote {args.out}/gemm_cost_sensitivity.{{json,txt}} (no matplotlib: no plot)")


if __name__ == "__main__":
    main()
