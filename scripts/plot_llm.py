#!/usr/bin/python3
"""Plots llm results: where a decode step's (or a prefill's) time goes, layer by
layer, how it compares with the bench's models, and, for a sweep, how tokens/s and
latency move with batch and context (a prefill's time to first token with the
prompt) against the roofline.

usage: scripts/plot_llm.py RESULT.json [OUT_DIR] [--format png|pdf|svg] [--dpi N]

    ./build/kernbench --bench llm --param model=llama3_8b --param layers=4 --json out/llm.json
    /usr/bin/python3 scripts/plot_llm.py out/llm.json
    ./build/kernbench --sweep scripts/sweeps/llm_decode_8b.yaml --out out/llm8b -j 2
    /usr/bin/python3 scripts/plot_llm.py out/llm8b/sweep.json

Writes into OUT_DIR (default: the folder of RESULT.json), FORMAT png by default:
  llm_layers.FORMAT    rank 0's time per layer by op class (GEMM, attention, all-reduce,
                       norm and elementwise, pipeline hand-off), stacked (rank 0 runs them
                       one after the other), and the LM head after the last layer; for a
                       sweep one panel per point
  llm_vs_model.FORMAT  measured over model for the whole step: latency against the roofline
                       bound and (decode) the per-phase model, the mean all-reduce and QKV
                       gather against the all-reduce model, energy per token against its
                       floor (same run); for a sweep one bar per point in each row
  llm_phases.FORMAT    (tensor-parallel decode) each phase's time added to the step, every
                       layer summed, beside the per-phase model's (µs, linear), and its
                       share of the step; for a sweep a table of phases by points, each
                       cell the share of the point's step and measured / model
and, for a sweep of several runs, against the swept key (its name on the x axis, a tick
at each of its values; a --set knob or a --param, numbers or names), one line per
combination of the other swept keys, the roofline bound dashed in the line's colour:
  llm_tokens.FORMAT    tokens/s (x: batch when the sweep varies it)
  llm_latency.FORMAT   latency per token (x: context when the sweep varies it)
or, for a prefill sweep (scripts/sweeps/llm_prefill_8b.yaml), instead of those two:
  llm_ttft.FORMAT      time to first token (x: prompt when the sweep varies it)
Every title names the model, phase, batch, context (or prompt) and PEs, the layers
simulated ("2 of 32 layers: not the model's", "5 of 32 layers simulated, the rest
extended"), the topology with its --set knobs and, for a sweep, what it varied and which
points failed (also printed: a failed point is not drawn).
Needs Debian's python3-matplotlib (scripts/install_deps.sh installs it).
"""
import json
import os
import shlex
import sys

import kbplot
from kbplot import plt
from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

# The phases of a layer, then the head, in the order the step runs them.
# (A sharded residual stream has the *_norm_gather and *_reduce_scatter phases.)
STEP_ORDER = ["attn_norm", "attn_norm_gather", "qkv", "qkv_gather", "rope", "kv_append",
              "attention", "attn_gather", "o_proj", "o_allreduce", "o_reduce_scatter",
              "o_residual", "ffn_norm", "ffn_norm_gather", "gate_up", "silu_mul", "down",
              "ffn_allreduce", "ffn_reduce_scatter", "ffn_residual", "final_norm",
              "final_norm_gather", "lm_head"]
CLASSES = [("gemm", "GEMM"), ("attention", "attention"), ("allreduce", "all-reduce"),
           ("norm_elementwise", "norm / elementwise"), ("pipeline", "pipeline hand-off")]


def is_sweep(doc):
    """A sweep.json (its runs are the points' processes), not a bench result (whose runs
    are its simulation runs)."""
    return "sweep" in doc and "runs" in doc


def results(doc):
    """Every successful run of a result or a sweep: dicts of its `metrics`, its `point`,
    its `grid` (a sweep run's --param and --set values, {} for a single result), its
    `index` in the sweep and `kinds` (grid key -> 'param' or 'set')."""
    if is_sweep(doc):
        out = []
        for r in doc["runs"] if doc.get("bench", "llm") == "llm" else []:
            if r.get("status") != "ok" or not r.get("points") or not r.get("metrics"):
                continue
            grid, kinds = {}, {}
            for kind in ("param", "set"):
                for k, v in (r.get(kind) or {}).items():
                    grid[k], kinds[k] = v, kind
            out.append({"metrics": r["metrics"], "point": r["points"][0], "grid": grid,
                        "index": r.get("index", len(out)), "kinds": kinds, "raw": r})
        return out
    if doc.get("bench") != "llm" or "op_classes_rank0" not in doc.get("metrics", {}):
        return []
    return [{"metrics": doc["metrics"], "point": doc["points"][0] if doc.get("points") else {},
             "grid": {}, "index": 0, "kinds": {}, "raw": {}}]


def not_drawn(doc):
    """[(index, status, grid values)] of a sweep's runs that are not drawn (failed, missing)."""
    if not is_sweep(doc):
        return []
    return [(r.get("index"), r.get("status", "?"), {**(r.get("param") or {}), **(r.get("set") or {})})
            for r in doc["runs"]
            if not (r.get("status") == "ok" and r.get("points") and r.get("metrics"))]


def grid_keys(runs):
    """Every grid key of RUNS in the spec's order (params, then --set knobs)."""
    keys = []
    for r in runs:
        keys += [k for k in r["grid"] if k not in keys]
    return keys


def swept_keys(runs):
    """The grid keys whose value differs between RUNS: what the sweep varies."""
    return kbplot.varying([r["grid"] for r in runs], grid_keys(runs))


def key_name(runs, key):
    """How a title or legend names a grid key: a --param by its name, a --set knob as such."""
    kinds = {}
    for r in runs:
        kinds.update(r["kinds"])
    return f"--set\u00a0{key}" if kinds.get(key) == "set" else key  # a wrap keeps it whole


def values_label(runs, run, keys):
    """'batch 4, --set pe.hbm.pc_bandwidth_gbps=64': RUN's values of KEYS."""
    parts = []
    for k in keys:
        name, v = key_name(runs, k), run["grid"].get(k)
        parts.append(f"{name}={v}" if name.startswith("--set") else f"{k} {v}")
    return ", ".join(parts)


UNITS = {"batch": "sequences", "context": "tokens", "prompt": "tokens", "ranks": "PEs",
         "layers": "layers simulated"}


def axis_label(runs, key, log=False):
    """The x label of a sweep figure: the swept key's name (and unit)."""
    unit = UNITS.get(key)
    extra = [u for u in (unit, "log scale" if log else None) if u]
    return key_name(runs, key) + (f" ({', '.join(extra)})" if extra else "")


# Params every llm figure names anyway: by the model, phase and batch, context or prompt
# of kbplot.llm_run_label, and the layers of kbplot.llm_layers_note.
NAMED = ("model", "phase", "batch", "context", "prompt", "ranks", "layers")


def command_params(run):
    """The --param KEY=VALUE pairs of a sweep run's command (the spec's fixed ones and its
    grid's), in their order."""
    words = shlex.split(run.get("command", ""))
    out = {}
    for flag, arg in zip(words, words[1:]):
        if flag in ("--param", "-p") and "=" in arg:
            k, v = arg.split("=", 1)
            out[k] = v
    return out


def sweep_what(runs, doc, topo):
    """The two subtitle lines of a sweep's figures: what every drawn run simulated (model,
    phase, the values they share, the layers) and what the sweep varied, with the points
    not drawn and why."""
    swept = swept_keys(runs)
    m0 = runs[0]["metrics"]
    what = [kbplot.llm_run_label(m0, leave_out=set(swept))]
    params = [command_params(r["raw"]) for r in runs]
    fixed = [k for k in params[0] if k not in NAMED and k not in swept
             and all(p.get(k) == params[0][k] for p in params)]
    what += [f"{k}={params[0][k]}" for k in fixed]
    line = ", ".join(what) + " — " + kbplot.llm_layers_note_of([r["metrics"] for r in runs])
    sweep = "swept: " + (" × ".join(
        f"{key_name(runs, k)} ({', '.join(str(v) for v in distinct(runs, k))})" for k in swept)
        if swept else "nothing (every drawn point has the same grid values)")
    missing = not_drawn(doc)
    note = ""
    if missing:
        by = {}
        for i, st, _ in missing:
            by.setdefault(st, []).append(str(i))
        note = (f"\n{len(runs)} of {len(runs) + len(missing)} points drawn: "
                + "; ".join(f"point{'s' if len(ix) > 1 else ''} {', '.join(ix)} {st}"
                            for st, ix in by.items()))
    return f"{line}\n{sweep} — {topo}{note}"


def distinct(runs, key):
    """KEY's values over RUNS, in their order."""
    out = []
    for r in runs:
        v = r["grid"].get(key)
        if v not in out:
            out.append(v)
    return out


def sweep_topology(doc, path, leave_out=()):
    """A sweep.json names no topology: take it from its first point's own result beside it
    (without the --set knobs the sweep varies: LEAVE_OUT)."""
    for r in doc.get("runs", []):
        point = os.path.join(os.path.dirname(os.path.abspath(path)), f"point_{r.get('index', 0):04d}.json")
        try:
            with open(point) as f:
                return kbplot.topology_name(json.load(f), leave_out)
        except (OSError, ValueError):
            continue
    return "?"


def run_what(metrics, topo):
    """The two subtitle lines of a single result's figures: what ran, on what, and which
    layers of the model it simulated."""
    return f"{kbplot.llm_run_label(metrics)} — {topo}\n{kbplot.llm_layers_note(metrics)}"


def draw_layers(ax, metrics):
    """Rank 0's time per layer by op class, stacked, and the LM head: onto AX. Returns the
    top of the tallest bar (µs)."""
    classes = metrics["op_classes_rank0"]
    n = len(classes["gemm"]["per_layer_ns"])
    head = sum(metrics.get("phases_rank0_ns", {}).get(k, 0.0) for k in ("lm_head", "final_norm"))
    bottom = [0.0] * n
    for i, (key, label) in enumerate(CLASSES):
        if key not in classes or not any(classes[key]["per_layer_ns"]):
            continue
        vals = [v / 1000 for v in classes[key]["per_layer_ns"]]
        ax.bar(range(n), vals, bottom=bottom, label=label, width=0.8, color=f"C{i}")
        bottom = [b + v for b, v in zip(bottom, vals)]
    ticks = list(range(n)) if n <= 24 else list(range(0, n, max(1, n // 12)))
    labels = [str(t) for t in ticks]
    if head > 0:
        ax.bar([n + 0.4], [head / 1000], width=0.8, color="0.55", hatch="//",
               edgecolor="white", label="LM head + final norm")
        ticks.append(n + 0.4)
        labels.append("LM\nhead")
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels)
    nbars = n + (1 if head > 0 else 0)
    ax.set_xlim(-0.7, nbars - 0.3 + (0.4 if head > 0 else 0))
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    return max(bottom + [head / 1000])


def layers_ylabel(metrics):
    pp = metrics.get("mapping", {}).get("name") == "pp"
    return "time on each stage's first rank (µs)" if pp else "time on rank 0 (µs)"


def layers_xlabel(metrics):
    ext = metrics.get("layer_extension") or {}
    return ("simulated layer (the others extended: not drawn)" if ext.get("extended")
            else "layer")


def legend_below(fig, ax_or_axes, ncol):
    """The figure's legend under its panels (kbplot.layout_above keeps it off them): the
    handles of every panel, each label once."""
    seen = {}
    for ax in (ax_or_axes if isinstance(ax_or_axes, (list, tuple)) else [ax_or_axes]):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    return fig.legend(list(seen.values()), list(seen.keys()), loc="lower center",
                      ncol=min(ncol, len(seen)), frameon=False)


def plot_layers(out, runs, what):
    """One panel for a single result; for a sweep, one panel per point (every point)."""
    if len(runs) == 1:
        metrics = runs[0]["metrics"]
        n = len(metrics["op_classes_rank0"]["gemm"]["per_layer_ns"])
        fig, ax = plt.subplots(figsize=(max(6.5, (n + 1) * 0.14 + 4.5), 4.6))
        top = draw_layers(ax, metrics)
        ax.set_xlabel(layers_xlabel(metrics))
        ax.set_ylabel(layers_ylabel(metrics))
        ax.set_ylim(0, top * 1.08)
        ax.set_title(kbplot.wrap(f"{what}\nwhere the time goes, layer by layer", fig, 10))
        kbplot.layout_above(fig, legend_below(fig, ax, 5))
        out.save(fig, "layers")
        return
    swept = swept_keys(runs)
    ncols = min(3, len(runs))
    nrows = (len(runs) + ncols - 1) // ncols
    n = max(len(r["metrics"]["op_classes_rank0"]["gemm"]["per_layer_ns"]) for r in runs)
    w = max(3.4, (n + 1) * 0.14 + 1.6)
    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols + 0.8, 2.7 * nrows + 1.4),
                             sharey=True, squeeze=False)
    flat = [a for row in axes for a in row]
    top = 0.0
    for ax, r in zip(flat, runs):
        top = max(top, draw_layers(ax, r["metrics"]))
        own = kbplot.llm_layers_note(r["metrics"])
        common = kbplot.llm_layers_note_of([x["metrics"] for x in runs])
        ax.set_title(f"point {r['index']}: {values_label(runs, r, swept)}"
                     + ("" if own == common else f"\n{own}"), fontsize=8.5)
        ax.set_xlabel(layers_xlabel(r["metrics"]), fontsize=8)
    for ax in flat[len(runs):]:
        ax.set_visible(False)
    for row in axes:
        row[0].set_ylabel(layers_ylabel(runs[0]["metrics"]))
    flat[0].set_ylim(0, top * 1.08)
    fig.suptitle(kbplot.wrap(f"{what}\nwhere the time goes, layer by layer: one panel per point",
                             fig, 9.5), fontsize=9.5)
    kbplot.layout_above(fig, legend_below(fig, flat[:len(runs)], 5))
    out.save(fig, "layers")


def fmt_ns(ns):
    unit, scale = kbplot.si_time([ns])
    return f"{ns / scale:.3g} {unit}"


def fmt_j(j):
    unit, scale = kbplot.si_energy([j * 1e12])
    return f"{j * 1e12 / scale:.3g} {unit}"


def model_rows(metrics):
    """[(label, measured, model, formatter)] of every measured/model pair the bench reports."""
    roof = metrics.get("roofline", {})
    prefill = metrics.get("phase") == "prefill"
    latency = metrics.get("ttft_ns" if prefill else "latency_per_token_ns")
    rows = []
    if latency and roof.get("bound_ns"):
        rows.append(("time to first token\nvs roofline bound" if prefill
                     else "latency per token\nvs roofline bound",
                     latency, roof["bound_ns"], fmt_ns))
    model = metrics.get("step_model") or {}
    if latency and model.get("total_ns"):
        rows.append(("latency per token\nvs per-phase model", latency, model["total_ns"], fmt_ns))
    if metrics.get("allreduce_measured_ns") and roof.get("allreduce_model_ns"):
        rows.append(("all-reduce (mean)\nvs all-reduce model", metrics["allreduce_measured_ns"],
                     roof["allreduce_model_ns"], fmt_ns))
    if metrics.get("reduce_scatter_measured_ns") and roof.get("reduce_scatter_model_ns"):
        rows.append(("reduce-scatter (mean)\nvs its model", metrics["reduce_scatter_measured_ns"],
                     roof["reduce_scatter_model_ns"], fmt_ns))
    if metrics.get("norm_gather_measured_ns") and roof.get("norm_gather_model_ns"):
        rows.append(("xn all-gather (mean)\nvs its model", metrics["norm_gather_measured_ns"],
                     roof["norm_gather_model_ns"], fmt_ns))
    if metrics.get("qkv_gather_measured_ns") and metrics.get("qkv_gather_model_ns"):
        # A decode step's: the step model's phase (the gather as the step runs it).
        rows.append(("QKV gather (mean)\nvs step model's phase", metrics["qkv_gather_measured_ns"],
                     metrics["qkv_gather_model_ns"], fmt_ns))
    elif metrics.get("qkv_gather_measured_ns") and roof.get("qkv_gather_model_ns"):
        rows.append(("QKV gather (mean)\nvs all-reduce model", metrics["qkv_gather_measured_ns"],
                     roof["qkv_gather_model_ns"], fmt_ns))
    if metrics.get("attn_gather_measured_ns") and metrics.get("attn_gather_over_model"):
        m = metrics["attn_gather_measured_ns"]
        rows.append(("attention gather (mean)\nvs all-reduce model", m,
                     m / metrics["attn_gather_over_model"], fmt_ns))
    if metrics.get("j_per_token") and metrics.get("energy_floor_j_per_token"):
        rows.append(("energy per token\nvs floor", metrics["j_per_token"],
                     metrics["energy_floor_j_per_token"], fmt_j))
    return rows


def plot_vs_model(out, runs, what):
    """Measured / model for every pair the bench reports: for a single result with the
    absolute values beside; for a sweep one bar per point in each row (every point)."""
    per_run = [model_rows(r["metrics"]) for r in runs]
    labels = []
    for rows in per_run:
        labels += [lab for lab, *_ in rows if lab not in labels]
    if not labels:
        return
    n = len(runs)
    fig, ax = plt.subplots(figsize=(7.5 if n == 1 else 8.5,
                                    len(labels) * (0.75 if n == 1 else 0.3 + 0.2 * n) + 1.9))
    ys = list(range(len(labels)))[::-1]
    height = 0.55 if n == 1 else 0.8 / n
    top = 1.0
    swept = swept_keys(runs) if n > 1 else []
    for j, (r, rows) in enumerate(zip(runs, per_run)):
        byl = {lab: (m, b, f) for lab, m, b, f in rows}
        yj, rj, tj = [], [], []
        for y, lab in zip(ys, labels):
            if lab not in byl:
                continue
            m, b, f = byl[lab]
            yj.append(y + (0 if n == 1 else (n - 1) / 2 * height - j * height))
            rj.append(m / b)
            tj.append(f"  {m / b:.2f}×  ({f(m)} vs {f(b)})" if n == 1 else f" {m / b:.2f}×")
        ax.barh(yj, rj, height * (1 if n == 1 else 0.92), color=f"C{j % 10}",
                label=None if n == 1 else f"point {r['index']}: {values_label(runs, r, swept)}")
        for y, ratio, text in zip(yj, rj, tj):
            ax.text(ratio, y, text, va="center", ha="left", fontsize=8 if n == 1 else 6.5)
        top = max([top] + rj)
    ax.axvline(1.0, color="black", linestyle="--", linewidth=1, label="model = 1")
    ax.set_yticks(ys)
    ax.set_yticklabels(labels)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.set_xlim(0, top * (1.9 if n == 1 else 1.25))
    ax.set_xlabel("measured / model (1 = the model's value)")
    ax.set_title(kbplot.wrap(f"{what}\nmeasured against the bench's models"
                             + ("" if n == 1 else ": one bar per point"), fig, 10, 0.8))
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    kbplot.layout_above(fig, legend_below(fig, ax, 2 if n > 3 else 4))
    out.save(fig, "vs_model")


def phase_names(model, seen):
    names = [n for n in STEP_ORDER if n in model and n in seen]
    return names + sorted(n for n in model if n in seen and n not in names)


def plot_phases(out, runs, what):
    """Each phase's time added to the step beside the per-phase model's, in step order:
    for a single result in µs (linear) and as a share of the step; for a sweep a table of
    every point's shares, each cell with its measured / model."""
    tables = []
    for r in runs:
        m = r["metrics"]
        model = (m.get("step_model") or {}).get("phases") or {}
        seen = m.get("phases_critical_ns") or {}
        tables.append((model, seen))
    names = []
    for model, seen in tables:
        names += [n for n in phase_names(model, seen) if n not in names]
    names = [n for n in STEP_ORDER if n in names] + [n for n in names if n not in STEP_ORDER]
    if not names:
        return
    if len(runs) == 1:
        plot_phases_one(out, tables[0], names, what)
    else:
        plot_phases_sweep(out, runs, tables, names, what)


def plot_phases_one(out, table, names, what):
    model, seen = table
    ys = list(range(len(names)))[::-1]
    meas = [seen[n] / 1000 for n in names]
    mod = [model[n]["ns_over_step"] / 1000 for n in names]
    step = sum(seen.values()) / 1000
    share = [100 * m / step if step else 0 for m in meas]
    fig, (ax, axs) = plt.subplots(1, 2, figsize=(9.5, 0.3 * len(names) + 2.3), sharey=True,
                                  gridspec_kw={"width_ratios": [3, 2]})
    ax.barh([y + 0.2 for y in ys], meas, 0.4, color="C0", label="measured: added to the step")
    ax.barh([y - 0.2 for y in ys], mod, 0.4, color="C1", label="per-phase model")
    for y, m, b in zip(ys, meas, mod):
        if b > 0:
            ax.text(max(m, b), y, f" {m / b:.2f}×", va="center", ha="left", fontsize=7)
    ax.set_yticks(ys)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_ylim(-0.6, len(names) - 0.4)
    ax.set_xlim(0, max(meas + mod) * 1.15)
    ax.set_xlabel("µs added to the step (every layer summed); measured / model beside")
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    axs.barh(ys, share, 0.6, color="C0")
    for y, p in zip(ys, share):
        axs.text(p, y, f" {p:.1f}%" if p >= 0.95 else f" {p:.2f}%", va="center", ha="left",
                 fontsize=7)
    axs.set_xlim(0, max(share) * 1.25)
    axs.xaxis.set_major_formatter(kbplot.PERCENT)
    axs.set_xlabel("measured share of the step")
    axs.grid(axis="x", alpha=0.3)
    axs.set_axisbelow(True)
    fig.suptitle(kbplot.wrap(f"{what}\neach phase: measured against the step model "
                             f"(step {fmt_ns(step * 1000)})", fig, 10), fontsize=10)
    kbplot.layout_above(fig, legend_below(fig, ax, 2))
    out.save(fig, "phases")


def plot_phases_sweep(out, runs, tables, names, what):
    """Phases down, points across: each cell the phase's share of that point's step
    (colour) and its measured / model."""
    n = len(runs)
    share = [[None] * n for _ in names]
    ratio = [[None] * n for _ in names]
    for j, (model, seen) in enumerate(tables):
        step = sum(seen.values())
        for i, name in enumerate(names):
            if name in seen and step:
                share[i][j] = 100 * seen[name] / step
                b = (model.get(name) or {}).get("ns_over_step")
                ratio[i][j] = seen[name] / b if b else None
    swept = swept_keys(runs)
    fig, ax = plt.subplots(figsize=(max(6.5, 1.05 * n + 3.2), 0.3 * len(names) + 2.6))
    data = [[v if v is not None else float("nan") for v in row] for row in share]
    top = max([v for row in share for v in row if v is not None] + [1.0])
    im = ax.imshow(data, cmap="Blues", vmin=0, vmax=top, aspect="auto")
    for i in range(len(names)):
        for j in range(n):
            if share[i][j] is None:
                ax.text(j, i, "–", ha="center", va="center", fontsize=7, color="0.5")
                continue
            text = f"{share[i][j]:.1f}%" + (f" {ratio[i][j]:.2f}×" if ratio[i][j] else "")
            ax.text(j, i, text, ha="center", va="center", fontsize=6.5,
                    color="white" if share[i][j] > 0.6 * top else "black")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xticks(range(n))
    ax.set_xticklabels([f"point {r['index']}\n" + values_label(runs, r, swept).replace(", ", "\n")
                        for r in runs], fontsize=7)
    fig.colorbar(im, ax=ax, pad=0.02, format=kbplot.PERCENT).set_label(
        "measured share of the point's step")
    ax.set_title(kbplot.wrap(f"{what}\neach phase of every point: share of its step, "
                             "measured / per-phase model beside", fig, 9, 0.8), fontsize=9)
    fig.tight_layout()
    out.save(fig, "phases")


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def plot_lines(out, runs, ys, bound, xkey, ylabel, what_file, title, yerr=None):
    """YS(point) against the swept XKEY, one line per combination of the other swept keys,
    BOUND(point) dashed in the same colour, YERR(point) (the error bar of a latency the
    layer extension estimated) as error bars where it is not 0."""
    swept = swept_keys(runs)
    others = [k for k in swept if k != xkey]
    xs_all = distinct(runs, xkey)
    numeric = all(is_number(v) for v in xs_all)
    if numeric:
        pos = {v: v for v in xs_all}
        log = min(xs_all) > 0 and max(xs_all) >= 4 * min(xs_all)
    else:  # categorical: the values in the spec's order
        pos = {v: i for i, v in enumerate(xs_all)}
        log = False
    fig, ax = plt.subplots(figsize=(6.8, 4.9))
    series = []
    for r in runs:
        key = tuple(r["grid"].get(k) for k in others)
        if key not in series:
            series.append(key)
    handles = []
    values = []
    for i, key in enumerate(series):
        pts = sorted((r for r in runs if tuple(r["grid"].get(k) for k in others) == key),
                     key=lambda r: pos[r["grid"].get(xkey)])
        x = [pos[r["grid"].get(xkey)] for r in pts]
        y = [ys(r["point"]) for r in pts]
        yb = [bound(r["point"]) for r in pts]
        label = values_label(runs, pts[0], others) if others else "measured"
        colour = f"C{i % 10}"
        err = [yerr(r["point"]) for r in pts] if yerr else []
        if any(err):
            ax.errorbar(x, y, yerr=err, fmt="none", ecolor=colour, capsize=3)
        if numeric:
            handles += ax.plot(x, y, marker="o", label=label, color=colour)
            ax.plot(x, yb, linestyle=(0, (4, 2)), color=colour, alpha=0.8, linewidth=1.5)
        else:  # no line across categories: a marker each, its bound a dashed tick over it
            handles += ax.plot(x, y, marker="o", linestyle="none", label=label, color=colour)
            for xi, b in zip(x, yb):
                ax.plot([xi - 0.25, xi + 0.25], [b, b], linestyle=(0, (4, 2)), color=colour,
                        alpha=0.8, linewidth=1.5)
        values += y + yb
    handles.append(Line2D([], [], color="black", linestyle=(0, (4, 2)), linewidth=1.5,
                          label="roofline bound (dashed, each line's colour)"))
    ax.set_xlabel(axis_label(runs, xkey, log))
    ylog = min(values) > 0 and max(values) >= 5 * min(values)
    ax.set_ylabel(ylabel.replace(")", ", log scale)") if ylog else ylabel)
    if log:
        kbplot.log_axis(ax.xaxis)
    if ylog:
        kbplot.log_axis(ax.yaxis)
    else:
        ax.yaxis.set_major_formatter(kbplot.PLAIN)
    ax.set_xticks(sorted(pos.values()))
    ax.set_xticklabels([kbplot.fmt_num(v) if numeric else str(v)
                        for v in sorted(xs_all, key=lambda v: pos[v])])
    ax.xaxis.set_minor_locator(NullLocator())  # a tick at every swept value, no others
    if not numeric:
        ax.set_xlim(-0.5, len(xs_all) - 0.5)
    ax.grid(alpha=0.3)
    ax.set_title(kbplot.wrap(title, fig, 9, 0.85), fontsize=9)
    kbplot.layout_above(fig, fig.legend(handles=handles, loc="lower center", frameon=False,
                                        ncol=2 if len(handles) <= 6 else 3, handlelength=3.5))
    out.save(fig, what_file)


def plot_sweep(out, runs, doc, what):
    """The sweep figures: tokens/s and latency per token (decode) or the time to first
    token (prefill) against the swept key, the roofline bound dashed."""
    swept = swept_keys(runs)
    if not swept:
        print("plot_llm.py: no tokens/latency figure: the drawn points differ in no grid value")
        return

    def x_for(preferred):
        return preferred if preferred in swept else swept[0]

    if all(r["metrics"].get("phase") == "prefill" for r in runs):
        plot_lines(out, runs, lambda p: p["latency_ns"] / 1000, lambda p: p["bound_ns"] / 1000,
                   x_for("prompt"), "time to first token (µs)", "ttft",
                   f"prefill: time to first token\n{what}")
        return
    plot_lines(out, runs, lambda p: p["tokens_per_s"], lambda p: p["roofline_tokens_per_s"],
               x_for("batch"), "throughput (tokens/s)", "tokens", f"decode throughput\n{what}")
    plot_lines(out, runs, lambda p: p["latency_ns"] / 1000, lambda p: p["bound_ns"] / 1000,
               x_for("context"), "latency per token (µs)", "latency",
               f"decode latency per token\n{what}",
               yerr=lambda p: (p.get("latency_error_ns") or 0) / 1000)


def main(argv=None):
    args, out = kbplot.parse_args(__doc__, "llm", argv)
    doc = kbplot.load(args.result, "plot_llm.py")
    runs = results(doc)
    if not runs:
        sys.exit("plot_llm.py: no successful llm result in " + args.result)
    for index, status, grid in not_drawn(doc):
        print(f"plot_llm.py: point {index} ({', '.join(f'{k}={v}' for k, v in grid.items())}) "
              f"is {status}: not drawn")
    if is_sweep(doc):
        swept = swept_keys(runs)
        topo = sweep_topology(doc, args.result,
                              [k for k in swept if runs[0]["kinds"].get(k) == "set"])
        what = sweep_what(runs, doc, topo)
        if len(runs) == 1:
            r = runs[0]
            what = (f"{run_what(r['metrics'], topo)}; the sweep's only drawn point: "
                    f"point {r['index']} ({values_label(runs, r, grid_keys(runs))})")
    else:
        what = run_what(runs[0]["metrics"], kbplot.topology_name(doc))
    plot_layers(out, runs, what)
    plot_vs_model(out, runs, what)
    plot_phases(out, runs, what)
    if len(runs) >= 2:
        plot_sweep(out, runs, doc, what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
