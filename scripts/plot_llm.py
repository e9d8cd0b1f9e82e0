#!/usr/bin/python3
"""Plots llm results: where a decode step's (or a prefill's) time goes, layer
by layer, and how tokens/s and latency move with batch and context (a
prefill's time to first token with the prompt) against the roofline.

    kernbench --bench llm --param model=llama3_8b --param layers=4 --json out/llm.json
    /usr/bin/python3 scripts/plot_llm.py out/llm.json out/llm
    kernbench --sweep scripts/sweeps/llm_decode_8b.yaml --out out/llm8b -j 2
    /usr/bin/python3 scripts/plot_llm.py out/llm8b/sweep.json out/llm8b/llm

writes PREFIX_layers.png (rank 0's time per layer by op class: GEMM,
attention, all-reduce, norm and elementwise; from a single result, or the
first point of a sweep) and, for a sweep, PREFIX_tokens.png (tokens/s vs
batch, one line per context, the roofline dashed) and PREFIX_latency.png
(latency per token vs context, one line per batch, the bound dashed); for a
prefill sweep (scripts/sweeps/llm_prefill_8b.yaml) PREFIX_ttft.png (time to
first token vs prompt, one line per batch, the bound dashed) instead.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

CLASSES = [("gemm", "GEMM"), ("attention", "attention"), ("allreduce", "all-reduce"),
           ("norm_elementwise", "norm / elementwise"), ("pipeline", "pipeline hand-off")]


def results(doc):
    """(metrics, point) of every successful run in a result or a sweep."""
    if "runs" in doc:
        return [(r["metrics"], r["points"][0]) for r in doc["runs"]
                if r.get("status") == "ok" and r.get("points")]
    return [(doc["metrics"], doc["points"][0] if doc.get("points") else {})]


def plot_layers(metrics, path):
    classes = metrics["op_classes_rank0"]
    n = len(classes["gemm"]["per_layer_ns"])
    fig, ax = plt.subplots(figsize=(max(6, n * 0.12 + 4), 4))
    bottom = [0.0] * n
    for key, label in CLASSES:
        if key not in classes:
            continue
        vals = [v / 1000 for v in classes[key]["per_layer_ns"]]
        ax.bar(range(n), vals, bottom=bottom, label=label, width=0.85)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xlabel("layer")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(-0.6, n - 0.4)
    if n <= 20:
        ax.set_xticks(range(n))
    pp = metrics["mapping"].get("name") == "pp"
    ax.set_ylabel("time on each stage's first rank (µs)" if pp else "time on rank 0 (µs)")
    where = (f'prompt {metrics["prompt"]}' if metrics.get("phase") == "prefill"
             else f'context {metrics["context"]}')
    ax.set_title(f'{metrics["model"]} {metrics.get("phase", "decode")}, batch '
                 f'{metrics["batch"]}, {where}: {metrics["layers_simulated"]} of '
                 f'{metrics["model_layers"]} layers')
    ax.set_ylim(0, max(bottom) * 1.35)  # room for the legend above the bars
    ax.legend(fontsize=8, ncol=3, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print("wrote", path)


def plot_lines(points, x, series, y, bound, xlabel, ylabel, path, logx=False):
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, s in enumerate(sorted({p[series] for p in points})):
        pts = sorted((p for p in points if p[series] == s), key=lambda p: p[x])
        xs = [p[x] for p in pts]
        line, = ax.plot(xs, [p[y] for p in pts], marker="o", label=f"{series} {s}")
        ax.plot(xs, [p[bound] for p in pts], linestyle="--", color=line.get_color(),
                label=f"{series} {s}: roofline" if i == 0 else None)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logx:
        ax.set_xscale("log")
    ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print("wrote", path)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_llm.py RESULT.json PREFIX")
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    prefix = sys.argv[2]
    runs = results(doc)
    if not runs:
        sys.exit("plot_llm.py: no successful llm result in " + sys.argv[1])
    plot_layers(runs[0][0], prefix + "_layers.png")
    points = [p for _, p in runs]
    if len(points) > 1 and all(p.get("phase") == "prefill" for p in points):
        for p in points:
            p["ttft_us"] = p["latency_ns"] / 1000
            p["bound_us"] = p["bound_ns"] / 1000
        plot_lines(points, "prompt", "batch", "ttft_us", "bound_us", "prompt (tokens)",
                   "time to first token (µs)", prefix + "_ttft.png", logx=True)
    elif len(points) > 1:
        plot_lines(points, "batch", "context", "tokens_per_s", "roofline_tokens_per_s",
                   "batch", "tokens/s", prefix + "_tokens.png", logx=True)
        for p in points:
            p["latency_us"] = p["latency_ns"] / 1000
            p["bound_us"] = p["bound_ns"] / 1000
        plot_lines(points, "context", "batch", "latency_us", "bound_us", "context (tokens)",
                   "latency per token (µs)", prefix + "_latency.png", logx=True)


if __name__ == "__main__":
    main()
