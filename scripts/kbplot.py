"""Shared pieces of the scripts/plot_*.py scripts (not a script itself).

Every plot script takes the same arguments:

    scripts/plot_X.py RESULT.json [OUT_DIR] [--format png|pdf|svg] [--dpi N]

OUT_DIR defaults to the folder of RESULT.json and is created if missing; each
figure is written as OUT_DIR/<prefix>_<what>.<format>, the prefix fixed per
script (gemm, gemm_strategies, gqa, ccl, llm, energy). --dpi (default 150)
sets the resolution of PNG output. PDF and SVG carry no creation date, so the
same result gives the same file.
"""
import argparse
import json
import os
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

FORMATS = ("png", "pdf", "svg")
DEFAULT_DPI = 150

plt.rcParams.update({
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": False,
    "savefig.facecolor": "white",
})


class Output:
    """Where and how the figures of one script go."""

    def __init__(self, out_dir, prefix, fmt, dpi):
        self.out_dir, self.prefix, self.fmt, self.dpi = out_dir, prefix, fmt, dpi
        self.written = []

    def path(self, what):
        return os.path.join(self.out_dir, f"{self.prefix}_{what}.{self.fmt}")

    def save(self, fig, what):
        """Lays out FIG, writes it as <prefix>_<what>.<format>, closes it."""
        os.makedirs(self.out_dir, exist_ok=True)
        path = self.path(what)
        metadata = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}.get(self.fmt, {})
        fig.savefig(path, dpi=self.dpi, metadata=metadata)
        plt.close(fig)
        self.written.append(path)
        print("wrote", path)
        return path


def parse_args(doc, prefix, argv=None):
    """The common command line; returns (args, Output). DOC is the script's usage text."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("result", metavar="RESULT.json", help="a kernbench --json result")
    ap.add_argument("out_dir", metavar="OUT_DIR", nargs="?",
                    help="where the figures go (default: the folder of RESULT.json)")
    ap.add_argument("--format", choices=FORMATS, default="png", help="file format (default png)")
    ap.add_argument("--dpi", type=int, default=DEFAULT_DPI,
                    help=f"resolution of PNG output (default {DEFAULT_DPI})")
    args = ap.parse_args(argv)
    if args.dpi <= 0:
        ap.error("--dpi must be positive")
    out_dir = args.out_dir or os.path.dirname(os.path.abspath(args.result))
    return args, Output(out_dir, prefix, args.format, args.dpi)


def load(path, script):
    """The JSON document at PATH, or exit with a one-line reason."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{script}: cannot read {path}: {e}")


def topology_name(doc, leave_out=()):
    """The topology a result ran on as its titles name it: its name and the --set overrides
    it ran with ('ahbm_1sip --set pe.hbm.pc_bandwidth_gbps=64'); LEAVE_OUT: knobs not to list
    (those a sweep varies, which its axes and legends name)."""
    topo = doc.get("topology") or {}
    sets = [o for o in topo.get("overrides") or []
            if str(o).split("=", 1)[0] not in set(leave_out)]
    return " ".join([topo.get("name", "?")] + [f"--set\u00a0{o}" for o in sets])  # kept together


# ---- what a run simulated and what a study swept ---------------------------------------

def varying(rows, keys):
    """The KEYS (in their order) whose value differs between the dicts ROWS (a key a row
    lacks counts as None)."""
    out = []
    for k in keys:
        seen = []
        for r in rows:
            v = r.get(k)
            if v not in seen:
                seen.append(v)
        if len(seen) > 1:
            out.append(k)
    return out


def llm_layers_note(metrics):
    """Which layers of the model an llm result simulated, as its tables say it:
    'all 32 layers simulated', '5 of 32 layers simulated, the rest extended' (the layer
    extension estimated the others) or '2 of 32 layers: not the model's' (--param layers=2:
    every figure of the result is the two layers')."""
    total = metrics.get("model_layers")
    sim = metrics.get("layers_simulated")
    ext = metrics.get("layer_extension") or {}
    if ext.get("extended"):
        return (f"{ext.get('simulated_layers', sim)} of {total} layers simulated, "
                "the rest extended")
    if metrics.get("all_layers_simulated") or (sim is not None and sim == total):
        return f"all {total} layers simulated"
    if sim is None or not total:
        return "layers simulated: not in the result"
    return f"{sim} of {total} layers: not the model's"


def llm_layers_note_of(metrics_list):
    """llm_layers_note of several results: theirs when they agree, a range of simulated
    layers when every one was extended, each distinct note otherwise."""
    notes = []
    for m in metrics_list:
        n = llm_layers_note(m)
        if n not in notes:
            notes.append(n)
    if len(notes) == 1:
        return notes[0]
    if all((m.get("layer_extension") or {}).get("extended") for m in metrics_list):
        sims = [m["layer_extension"].get("simulated_layers", m.get("layers_simulated"))
                for m in metrics_list]
        return (f"{min(sims)}–{max(sims)} of {metrics_list[0].get('model_layers')} layers "
                "simulated, the rest extended")
    return "; ".join(notes)


def llm_run_label(metrics, leave_out=()):
    """An llm result's model, phase, batch, context (or prompt) and PEs:
    'llama3_8b decode, batch 1, context 8192, 128 PEs'; LEAVE_OUT: the keys (batch,
    context, prompt, ranks) a sweep varies, named by its axes instead."""
    prefill = metrics.get("phase") == "prefill"
    parts = [f'{metrics.get("model", "?")} {metrics.get("phase", "decode")}']
    if "batch" not in leave_out:
        parts.append(f'batch {metrics.get("batch", "?")}')
    if prefill and "prompt" not in leave_out:
        parts.append(f'prompt {metrics.get("prompt", "?")}')
    if not prefill and "context" not in leave_out:
        parts.append(f'context {metrics.get("context", "?")}')
    ranks = (metrics.get("mapping") or {}).get("ranks")
    if ranks and "ranks" not in leave_out:
        parts.append(f"{ranks} PEs")
    return ", ".join(parts)


def llm_subject(metrics):
    """The line every figure of one llm result carries: what ran and which layers of it."""
    return f"{llm_run_label(metrics)} — {llm_layers_note(metrics)}"


def wrap(text, fig, fontsize, share=1.0):
    """TEXT with each line broken (at spaces) to fit SHARE of FIG's width at FONTSIZE
    points: a long title (a topology with --set knobs, a sweep's values) never runs off
    the figure."""
    chars = max(20, int(fig.get_figwidth() * share * 72 / (fontsize * 0.5)))
    return "\n".join(textwrap.fill(line, chars, break_on_hyphens=False, break_long_words=False)
                     for line in text.split("\n"))


def layout_above(fig, legend):
    """tight_layout of FIG's panels in the space above LEGEND (a fig.legend at the lower
    centre): the legend never covers a bar, a line or a label."""
    fig.canvas.draw()
    height = legend.get_window_extent(fig.canvas.get_renderer()).height / fig.bbox.height
    fig.tight_layout(rect=(0, height + 0.01, 1, 1))


# ---- tick labels -------------------------------------------------------------------------

def fmt_bytes(n):
    """4096 -> '4 KiB', 1048576 -> '1 MiB', 1536 -> '1.5 KiB'."""
    n = float(n)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def fmt_num(v):
    """A plain number for a tick: 0.5, 20, 1000, 100,000 (never 10^5)."""
    if v == 0:
        return "0"
    if abs(v) >= 10000:
        return f"{v:,.0f}"
    return f"{v:g}"


BYTES = FuncFormatter(lambda v, _pos: fmt_bytes(v))
PLAIN = FuncFormatter(lambda v, _pos: fmt_num(v))
PERCENT = FuncFormatter(lambda v, _pos: f"{v:.0f}%")


def bytes_axis(axis, ticks=None):
    """Log-2 byte axis (AXIS: ax.xaxis or ax.yaxis) labelled 4 KiB, 1 MiB...; TICKS: the
    values to mark (default: every power of two matplotlib picks)."""
    if axis is axis.axes.xaxis:
        axis.axes.set_xscale("log", base=2)
    else:
        axis.axes.set_yscale("log", base=2)
    if ticks is not None:
        axis.set_ticks(sorted(set(ticks)))
    axis.set_major_formatter(BYTES)
    axis.set_minor_formatter(NullFormatter())


def log_axis(axis, subs=(1.0, 2.0, 5.0)):
    """Log-10 axis with plain tick labels at 1, 2, 5, 10, 20, 50... (SUBS) instead of 10^n;
    data within one decade (plotted before the call) gets a tick at every 1..9 x 10^n."""
    if axis is axis.axes.xaxis:
        axis.axes.set_xscale("log")
    else:
        axis.axes.set_yscale("log")
    lo, hi = axis.get_data_interval()
    if 0 < lo < hi < 10 * lo:
        subs = tuple(float(i) for i in range(1, 10))
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(PLAIN)
    axis.set_minor_formatter(NullFormatter())


def si_energy(values_pj):
    """(unit, scale) keeping the largest of VALUES_PJ (picojoules) between 1 and 1000."""
    top = max([abs(v) for v in values_pj] + [0.0])
    for unit, scale in (("J", 1e12), ("mJ", 1e9), ("µJ", 1e6), ("nJ", 1e3)):
        if top >= scale:
            return unit, scale
    return "pJ", 1.0


def si_time(values_ns):
    """(unit, scale) keeping the largest of VALUES_NS (nanoseconds) between 1 and 1000."""
    top = max([abs(v) for v in values_ns] + [0.0])
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if top >= scale:
            return unit, scale
    return "ns", 1.0
