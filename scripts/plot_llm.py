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
                       one after the other), and the LM head after the last layer; from a
                       single result or the first run of a sweep
  llm_vs_model.FORMAT  measured over model for the whole step: latency against the roofline
                       bound and (decode) the per-phase model, the mean all-reduce and QKV
                       gather against the all-reduce model, energy per token against its
                       floor (same run)
  llm_phases.FORMAT    (tensor-parallel decode) each phase's time added to the step, every
                       layer summed, beside the per-phase model's
and, for a sweep of several runs:
  llm_tokens.FORMAT    tokens/s vs batch, one line per context, the roofline dashed
  llm_latency.FORMAT   latency per token vs context, one line per batch, the bound dashed
or, for a prefill sweep (scripts/sweeps/llm_prefill_8b.yaml), instead of those two:
  llm_ttft.FORMAT      time to first token vs prompt, one line per batch, the bound dashed
Needs Debian's python3-matplotlib (scripts/install_deps.sh installs it).
"""
import json
import os
import sys

import kbplot
from kbplot import plt

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
    """(metrics, point) of every successful run in a result or a sweep."""
    if is_sweep(doc):
        return [(r["metrics"], r["points"][0]) for r in doc["runs"]
                if r.get("status") == "ok" and r.get("points") and r.get("metrics")]
    if doc.get("bench") != "llm" or "op_classes_rank0" not in doc.get("metrics", {}):
        return []
    return [(doc["metrics"], doc["points"][0] if doc.get("points") else {})]


def sweep_topology(doc, path):
    """A sweep.json names no topology: take it from its first point's own result beside it."""
    for r in doc.get("runs", []):
        point = os.path.join(os.path.dirname(os.path.abspath(path)), f"point_{r.get('index', 0):04d}.json")
        try:
            with open(point) as f:
                return kbplot.topology_name(json.load(f))
        except (OSError, ValueError):
            continue
    return "?"


def run_title(metrics):
    where = (f'prompt {metrics["prompt"]}' if metrics.get("phase") == "prefill"
             else f'context {metrics["context"]}')
    ranks = metrics.get("mapping", {}).get("ranks")
    return (f'{metrics["model"]} {metrics.get("phase", "decode")}, batch {metrics["batch"]}, '
            f'{where}, {metrics["layers_simulated"]} of {metrics["model_layers"]} layers'
            + (f", {ranks} PEs" if ranks else ""))


def plot_layers(out, metrics, topo):
    classes = metrics["op_classes_rank0"]
    n = len(classes["gemm"]["per_layer_ns"])
    head = sum(metrics.get("phases_rank0_ns", {}).get(k, 0.0) for k in ("lm_head", "final_norm"))
    nbars = n + (1 if head > 0 else 0)
    fig, ax = plt.subplots(figsize=(max(6.5, nbars * 0.14 + 4.5), 4.3))
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
    ax.set_xlim(-0.7, nbars - 0.3 + (0.4 if head > 0 else 0))
    ax.set_xlabel("layer")
    pp = metrics.get("mapping", {}).get("name") == "pp"
    ax.set_ylabel("time on each stage's first rank (µs)" if pp else "time on rank 0 (µs)")
    ax.set_title(f"{run_title(metrics)}\nwhere the time goes, layer by layer — {topo}")
    ax.set_ylim(0, max(bottom + [head / 1000]) * 1.3)  # room for the legend above the bars
    ax.legend(ncol=3, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    fig.tight_layout()
    out.save(fig, "layers")


def fmt_ns(ns):
    unit, scale = kbplot.si_time([ns])
    return f"{ns / scale:.3g} {unit}"


def fmt_j(j):
    unit, scale = kbplot.si_energy([j * 1e12])
    return f"{j * 1e12 / scale:.3g} {unit}"


def plot_vs_model(out, metrics, topo):
    """Measured / model for every pair the bench reports, the absolute values beside."""
    roof = metrics.get("roofline", {})
    prefill = metrics.get("phase") == "prefill"
    latency = metrics.get("ttft_ns" if prefill else "latency_per_token_ns")
    rows = []  # (label, measured, model, formatter)
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
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(7.5, 0.75 * len(rows) + 1.6))
    ys = list(range(len(rows)))[::-1]
    ratios = [m / b for _, m, b, _ in rows]
    ax.barh(ys, ratios, 0.55, color="C0")
    ax.axvline(1.0, color="black", linestyle="--", linewidth=1, label="model = 1")
    for y, (label, m, b, f), r in zip(ys, rows, ratios):
        ax.text(r, y, f"  {r:.2f}×  ({f(m)} vs {f(b)})", va="center", ha="left", fontsize=8)
    ax.set_yticks(ys)
    ax.set_yticklabels([r[0] for r in rows])
    ax.set_xlim(0, max(ratios + [1.0]) * 1.9)
    ax.set_xlabel("measured / model (1 = the model's value)")
    ax.set_title(f"{run_title(metrics)}\nmeasured against the bench's models — {topo}")
    ax.legend(loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    fig.tight_layout()
    out.save(fig, "vs_model")


def plot_phases(out, metrics, topo):
    """Each phase's time added to the step beside the per-phase model's, in step order."""
    model = (metrics.get("step_model") or {}).get("phases") or {}
    seen = metrics.get("phases_critical_ns") or {}
    names = [n for n in STEP_ORDER if n in model and n in seen]
    names += sorted(n for n in model if n in seen and n not in names)
    if not names:
        return
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(names) + 1.8))
    ys = list(range(len(names)))[::-1]
    meas = [seen[n] / 1000 for n in names]
    mod = [model[n]["ns_over_step"] / 1000 for n in names]
    ax.barh([y + 0.2 for y in ys], meas, 0.4, color="C0", label="measured: added to the step")
    ax.barh([y - 0.2 for y in ys], mod, 0.4, color="C1", label="per-phase model")
    for y, m, b in zip(ys, meas, mod):
        if b > 0:
            ax.text(max(m, b), y, f"  {m / b:.2f}×", va="center", ha="left", fontsize=7)
    ax.set_yticks(ys)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xscale("log")
    ax.set_xlim(min(x for x in meas + mod if x > 0) / 2, max(meas + mod) * 4)
    ax.set_xlabel("µs over the step (every layer summed, log scale)")
    ax.set_title(f"{run_title(metrics)}\neach phase: measured against the step model — {topo}")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    fig.tight_layout()
    out.save(fig, "phases")


def plot_lines(out, points, x, series, y, bound, xlabel, ylabel, what, title):
    fig, ax = plt.subplots(figsize=(6.5, 4.3))
    for i, s in enumerate(sorted({p[series] for p in points})):
        pts = sorted((p for p in points if p[series] == s), key=lambda p: p[x])
        xs = [p[x] for p in pts]
        ax.plot(xs, [p[y] for p in pts], marker="o", label=f"{series} {s}", color=f"C{i}")
        ax.plot(xs, [p[bound] for p in pts], linestyle="--", color=f"C{i}", alpha=0.8)
    ax.plot([], [], linestyle="--", color="black", label="roofline bound (dashed)")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    kbplot.log_axis(ax.xaxis)
    ax.set_xticks(sorted({p[x] for p in points}))
    kbplot.log_axis(ax.yaxis)
    ax.xaxis.set_major_formatter(kbplot.PLAIN)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title)
    fig.tight_layout()
    out.save(fig, what)


def main(argv=None):
    args, out = kbplot.parse_args(__doc__, "llm", argv)
    doc = kbplot.load(args.result, "plot_llm.py")
    runs = results(doc)
    if not runs:
        sys.exit("plot_llm.py: no successful llm result in " + args.result)
    topo = sweep_topology(doc, args.result) if is_sweep(doc) else kbplot.topology_name(doc)
    plot_layers(out, runs[0][0], topo)
    plot_vs_model(out, runs[0][0], topo)
    plot_phases(out, runs[0][0], topo)
    points = [p for _, p in runs]
    if len(points) < 2:
        return 0
    m0 = runs[0][0]
    what = f'{m0["model"]}, {m0["layers_simulated"]} of {m0["model_layers"]} layers — {topo}'
    if all(p.get("phase") == "prefill" for p in points):
        for p in points:
            p["ttft_us"] = p["latency_ns"] / 1000
            p["bound_us"] = p["bound_ns"] / 1000
        plot_lines(out, points, "prompt", "batch", "ttft_us", "bound_us",
                   "prompt (tokens, log scale)", "time to first token (µs, log scale)", "ttft",
                   f"prefill: time to first token\n{what}")
    else:
        plot_lines(out, points, "batch", "context", "tokens_per_s", "roofline_tokens_per_s",
                   "batch (sequences, log scale)", "throughput (tokens/s, log scale)", "tokens",
                   f"decode throughput\n{what}")
        for p in points:
            p["latency_us"] = p["latency_ns"] / 1000
            p["bound_us"] = p["bound_ns"] / 1000
        plot_lines(out, points, "context", "batch", "latency_us", "bound_us",
                   "context (tokens, log scale)", "latency per token (µs, log scale)", "latency",
                   f"decode latency per token\n{what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
