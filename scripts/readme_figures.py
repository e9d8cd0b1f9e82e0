#!/usr/bin/python3
"""The figures quoted in README.md and docs/*.md, generated from committed results.

usage:
  scripts/readme_figures.py [--check]
  scripts/readme_figures.py run NAME [--from-json RESULT.json] [--allow-dirty] -- ARGS...
  scripts/readme_figures.py run NAME...

Without a command, every generated section of README.md and docs/*.md is rewritten:
"<!-- figures:NAME:begin -->" ... "<!-- figures:NAME:end -->" by the function of that
NAME below (FIGURES), from the results in docs/results/; "<!-- model_error:... -->" by
scripts/model_error.py's table of docs/model_error.json, "<!-- fidelity:... -->" by
scripts/fidelity_table.py's of docs/fidelity.json, and "<!-- example:NAME:... -->" by
examples/NAME/main.cpp as a code block (the example scripts/check_examples.sh builds). --check rewrites nothing: it names
every section a rewrite would change (or that no function renders) and exits 1. Neither
runs kernbench.

`run NAME -- ARGS` runs `./build/kernbench ARGS --json TMP` (KERNBENCH=PATH picks another
binary) and writes docs/results/NAME.json: ARGS, and of the result only its identity
(bench, topology, params, fidelity, kernbench_version) and the fields the figures read
(KEEP). Every figure shows its command as `./build/kernbench ARGS`, checked against the
result's bench, topology, --set overrides and params, so the two cannot disagree.
--from-json compacts a result that `kernbench ARGS --json RESULT.json` already made
instead of running it; `run NAME...` without ARGS reruns each with the ARGS its
docs/results/NAME.json holds. A result of a build with uncommitted changes (its version
says "-dirty") is refused unless --allow-dirty.

    /usr/bin/python3 scripts/readme_figures.py run llm_8b -- -t ahbm_1sip -b llm -p model=llama3_8b
    /usr/bin/python3 scripts/readme_figures.py          # then rewrite the sections
    /usr/bin/python3 scripts/readme_figures.py --check  # what CI runs (.ci/run)
"""
import glob
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # CI runs it in the checkout: leave no __pycache__ there
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_sections  # noqa: E402
import fidelity_table  # noqa: E402
import model_error  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results")
SHOWN_BINARY = "./build/kernbench"

# The fields of a result that docs/results/ keeps, by bench: dotted paths into `metrics`
# and into each of `points` ("*" for every key of an object), and topology knobs.
KEEP = {
    "llm": {"metrics": [
        "model", "model_layers", "batch", "context", "phase", "residual", "residual_choice",
        "allreduce", "layers_simulated", "layers_extended", "all_layers_simulated",
        "latency_per_token_ns", "latency_error_ns", "tokens_per_s", "roofline_tokens_per_s",
        "roofline.bound_ns", "roofline.hbm_ns", "roofline.gemm_tile_ns", "roofline.compute_ns",
        "latency_over_bound", "latency_over_model", "step_model.total_ns",
        "allreduce_measured_ns", "allreduce_over_model", "qkv_gather_measured_ns",
        "qkv_gather_over_model", "j_per_token", "energy_floor_j_per_token",
        "j_per_token_over_floor", "j_per_token_by_op_class.*", "op_classes_rank0.*.total_ns",
        "hbm_util", "mapping.ranks"]},
    "allreduce": {"points": [
        "algo", "buffer", "bytes_per_pe", "p", "topology", "skipped", "latency_ns",
        "analytic_ns", "measured_over_analytic", "model.regime", "model_bottleneck",
        "busbw_gbps", "dynamic_pj_per_byte", "model_dynamic_pj_per_byte"]},
    "ccl-sweep": {"points": [
        "algo", "buffer", "bytes_per_pe", "p", "topology", "skipped", "latency_ns",
        "analytic_ns", "dynamic_pj_per_byte", "model_dynamic_pj_per_byte", "pj_per_byte",
        "energy.by_class.*.dynamic_pj"]},
}
KNOBS = ["sip.cube_link.bandwidth_gbps", "system.sip_link.bandwidth_gbps", "sip.topology"]


class Stale(Exception):
    pass


# --- compact results ---------------------------------------------------------------------------

def pick(obj, path):
    """{...} holding only path (dotted, "*" for every key) of obj; None if obj lacks it."""
    head, _, rest = path.partition(".")
    if not isinstance(obj, dict):
        return None
    keys = list(obj) if head == "*" else [head] if head in obj else []
    out = {}
    for k in keys:
        if not rest:
            out[k] = obj[k]
        else:
            sub = pick(obj[k], rest)
            if sub is not None:
                out[k] = sub
    return out or None


def merge(a, b):
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            merge(a[k], v)
        else:
            a[k] = v
    return a


def keep(obj, paths):
    out = {}
    for p in paths:
        merge(out, pick(obj, p) or {})
    return out


def parse_args(argv):
    """The topology, bench, --set list, params, fidelity and data mode argv asks for."""
    want = {"topology": "ahbm_1sip", "bench": "milestone", "set": [], "param": {},
            "fidelity": None, "data": False}
    it = iter(argv)
    for a in it:
        opt, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if opt in ("-q", "--quiet"):
            continue
        if opt == "--data":
            want["data"] = True
            continue
        if opt not in ("-t", "--topology", "-b", "--bench", "-p", "--param", "-s", "--set",
                       "--fidelity"):
            raise ValueError(f"readme_figures.py: {a!r}: only -t, -b, -p, -s, --fidelity, "
                             "--data and -q may describe a figure's run")
        if not eq:
            val = next(it, None)
            if val is None:
                raise ValueError(f"readme_figures.py: {a} needs a value")
        if opt in ("-t", "--topology"):
            want["topology"] = val
        elif opt in ("-b", "--bench"):
            want["bench"] = val
        elif opt in ("-s", "--set"):
            want["set"].append(val)
        elif opt == "--fidelity":
            want["fidelity"] = val
        else:
            k, _, v = val.partition("=")
            want["param"][k] = v
    return want


def verify(doc, where):
    """Raise ValueError unless doc's argv asks for what doc holds."""
    want = parse_args(doc["argv"])
    topo = doc.get("topology", {})
    names = {topo.get("name"), topo.get("source", "").split(" ")[0],
             os.path.splitext(os.path.basename(topo.get("source", "").split(" ")[0]))[0]}
    bad = []
    if doc.get("bench") != want["bench"]:
        bad.append(f"bench {doc.get('bench')!r}, not {want['bench']!r}")
    if want["topology"] not in names:
        bad.append(f"topology {topo.get('name')!r}, not {want['topology']!r}")
    if list(topo.get("overrides", [])) != want["set"]:
        bad.append(f"--set {topo.get('overrides')}, not {want['set']}")
    for k, v in want["param"].items():
        if str(doc.get("params", {}).get(k)) != v:
            bad.append(f"param {k}={doc.get('params', {}).get(k)!r}, not {v!r}")
    if want["fidelity"] and (doc.get("fidelity") or {}).get("asked") != want["fidelity"]:
        bad.append(f"fidelity {(doc.get('fidelity') or {}).get('asked')!r}")
    if bool(doc.get("data_mode")) != want["data"]:
        bad.append(f"data mode {doc.get('data_mode')}")
    if bad:
        raise ValueError(f"{where}: its command ({command(doc)}) is not the run it holds: "
                         + "; ".join(bad))


def compact(doc, argv):
    spec = KEEP.get(doc.get("bench"), {})
    out = {"argv": list(argv)}
    for k in ("bench", "kernbench_version", "params", "data_mode", "fidelity", "sim_time_ns"):
        if k in doc:
            out[k] = doc[k]
    topo = doc.get("topology") or {}
    out["topology"] = {k: topo[k] for k in ("name", "source", "overrides") if k in topo}
    out["topology"]["knobs"] = {k: topo["knobs"][k] for k in KNOBS if k in topo.get("knobs", {})}
    out["metrics"] = keep(doc.get("metrics") or {}, spec.get("metrics", []))
    if spec.get("points"):
        out["points"] = [keep(p, spec["points"]) for p in doc.get("points", [])]
    return out


def cmd_run(args):
    if not args or args[0].startswith("-"):
        sys.exit("usage: readme_figures.py run NAME [--from-json RESULT.json] [--allow-dirty] "
                 "[-- ARGS...]")
    if "--" not in args:
        # Rerun every NAME with the ARGS its docs/results/NAME.json holds.
        for name in args:
            with open(os.path.join(RESULTS, name + ".json"), encoding="utf-8") as f:
                cmd_run([name, "--"] + json.load(f)["argv"])
        return
    cut = args.index("--")
    name, opts, argv = args[0], args[1:cut], args[cut + 1:]
    src, dirty = None, False
    while opts:
        o = opts.pop(0)
        if o == "--from-json" and opts:
            src = opts.pop(0)
        elif o == "--allow-dirty":
            dirty = True
        else:
            sys.exit(f"readme_figures.py run: unknown option {o}")
    try:
        parse_args(argv)
    except ValueError as e:
        sys.exit(str(e))
    if src is None:
        kb = os.environ.get("KERNBENCH", os.path.join(ROOT, "build", "kernbench"))
        fd, src = tempfile.mkstemp(suffix=".json", prefix="readme_figures_")
        os.close(fd)
        try:
            print("+ " + shlex.join([kb] + argv + ["--json", src]), file=sys.stderr)
            rc = subprocess.call([kb] + argv + ["--json", src], cwd=ROOT)
            if rc != 0:
                sys.exit(f"readme_figures.py: kernbench exited {rc}")
            with open(src, encoding="utf-8") as f:
                doc = json.load(f)
        finally:
            os.unlink(src)
    else:
        with open(src, encoding="utf-8") as f:
            doc = json.load(f)
    if "-dirty" in doc.get("kernbench_version", "") and not dirty:
        sys.exit(f"readme_figures.py: {doc['kernbench_version']}: a build with uncommitted "
                 "changes; its figures would name no commit (--allow-dirty to keep it)")
    out = compact(doc, argv)
    path = os.path.join(RESULTS, name + ".json")
    try:
        verify(out, os.path.relpath(path, ROOT))
    except ValueError as e:
        sys.exit(str(e))
    os.makedirs(RESULTS, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {os.path.relpath(path, ROOT)}")


# --- formatting ------------------------------------------------------------------------------

_cache = {}


def result(name):
    if name not in _cache:
        path = os.path.join(RESULTS, name + ".json")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        verify(doc, os.path.relpath(path, ROOT))
        _cache[name] = doc
    return _cache[name]


def command(doc):
    return shlex.join([SHOWN_BINARY] + doc["argv"])


def source(*names):
    docs = [result(n) for n in names]
    versions = sorted({d.get("kernbench_version", "?") for d in docs})
    files = ", ".join(f"`docs/results/{n}.json`" for n in names)
    return (f"<sub>Generated by `scripts/readme_figures.py` from {files} "
            f"(kernbench {', '.join(versions)}).</sub>\n")


def ns(x):
    """A duration: ms, µs or ns with four significant figures at most."""
    if x >= 1e6:
        return f"{x / 1e6:.3f} ms"
    if x >= 1e3:
        return f"{x / 1e3:.1f} µs"
    return f"{x:.0f} ns"


def us(x):
    return f"{x / 1e3:.2f}"


def sig(x, n=3):
    """x with n significant figures, no exponent."""
    if x == 0:
        return "0"
    from math import floor, log10
    d = max(n - 1 - int(floor(log10(abs(x)))), 0)
    return f"{x:.{d}f}"


def joule(x):
    return f"{sig(x)} J" if x >= 1 else f"{sig(x * 1e3)} mJ"


def ratio(x):
    return f"{x:.2f}"


def pct(x, digits=0):
    return f"{100 * x:.{digits}f} %"


def change(x, base):
    return "-" if x == base else f"{100 * (x / base - 1):+.1f} %"


def size(b):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


def shares(m, order=("gemm", "attention", "allreduce", "norm_elementwise")):
    t = {k: v["total_ns"] for k, v in m["op_classes_rank0"].items()}
    total = sum(t.values())
    return [t.get(k, 0) / total for k in order]


OP_CLASS = {"gemm": "GEMM", "attention": "attention", "allreduce": "all-reduces and gathers",
            "norm_elementwise": "norms and elementwise"}


def chip(doc):
    m = doc["metrics"]
    return f"`{doc['topology']['name']}`, {m['mapping']['ranks']} PEs"


def layers(m):
    if m.get("layers_extended"):
        return (f"{m['layers_simulated']} of {m['model_layers']} simulated, the rest "
                f"extended by their mean")
    if not m.get("all_layers_simulated", True):
        return f"{m['layers_simulated']} of {m['model_layers']} (the figures are theirs)"
    return f"all {m['model_layers']}"


def latency(m):
    err = m.get("latency_error_ns")
    return ns(m["latency_per_token_ns"]) + (f" ± {ns(err)}" if err else "")


# --- the figures -----------------------------------------------------------------------------

def fig_llm_decode():
    """README: the two headline decode runs, side by side."""
    a, b = result("llm_8b"), result("llm_70b")
    ma, mb = a["metrics"], b["metrics"]
    sa, sb = shares(ma), shares(mb)
    rows = [
        ("**decode tokens/s**", f"**{ma['tokens_per_s']:.1f}**", f"**{mb['tokens_per_s']:.1f}**"),
        ("roofline bound, tokens/s", f"{ma['roofline_tokens_per_s']:.1f}",
         f"{mb['roofline_tokens_per_s']:.1f}"),
        ("measured / bound", ratio(1 / ma["latency_over_bound"]),
         ratio(1 / mb["latency_over_bound"])),
        ("latency per token", latency(ma), latency(mb)),
        ("per-phase step model: measured / model", ratio(ma["latency_over_model"]),
         ratio(mb["latency_over_model"])),
        ("energy per token (floor)", f"{joule(ma['j_per_token'])} "
         f"({joule(ma['energy_floor_j_per_token'])})",
         f"{joule(mb['j_per_token'])} ({joule(mb['energy_floor_j_per_token'])})"),
        ("rank 0's time: GEMM / attention / all-reduce / norm",
         " / ".join(pct(x, 1) for x in sa), " / ".join(pct(x, 1) for x in sb)),
        ("batch, context", f"{ma['batch']}, {ma['context']}", f"{mb['batch']}, {mb['context']}"),
        ("layers", layers(ma), layers(mb)),
    ]
    out = ["```sh", command(a), command(b), "```", "",
           f"| | Llama-3-8B on {chip(a)} | Llama-3-70B on {chip(b)} |", "|---|---:|---:|"]
    out += [f"| {r[0]} | {r[1]} | {r[2]} |" for r in rows]
    return "\n".join(out) + "\n\n" + source("llm_8b", "llm_70b")


def fig_cube_link_whatif():
    """README: the 8B decode step with the cube links' bandwidth changed."""
    names = ["llm_8b_cube_link_32", "llm_8b", "llm_8b_cube_link_256"]
    docs = [result(n) for n in names]
    base = result("llm_8b")["metrics"]["tokens_per_s"]
    out = ["```sh", command(docs[0]), "```", "",
           "| `sip.cube_link.bandwidth_gbps` | tokens/s | vs the default | all-reduce, mean "
           "| measured / all-reduce model | QKV gather, mean |",
           "|---:|---:|---:|---:|---:|---:|"]
    for d in docs:
        m = d["metrics"]
        bw = d["topology"]["knobs"]["sip.cube_link.bandwidth_gbps"]
        mark = " (default)" if not d["topology"]["overrides"] else ""
        out.append(f"| {bw}{mark} | {m['tokens_per_s']:.1f} | {change(m['tokens_per_s'], base)} | "
                   f"{ns(m['allreduce_measured_ns'])} | {ratio(m['allreduce_over_model'])} | "
                   f"{ns(m['qkv_gather_measured_ns'])} |")
    return "\n".join(out) + "\n\n" + source(*names)


def fig_allreduce():
    """README: every all-reduce algorithm at three sizes, beside its model."""
    d = result("allreduce")
    pts = [p for p in d["points"] if not p.get("skipped")]
    sizes = sorted({p["bytes_per_pe"] for p in pts})
    algos = list(dict.fromkeys(p["algo"] for p in pts))
    at = {(p["algo"], p["bytes_per_pe"]): p for p in pts}
    best = {s: min((p for p in pts if p["bytes_per_pe"] == s), key=lambda p: p["latency_ns"])
            for s in sizes}
    out = ["```sh", command(d), "```", "",
           f"Latency in µs (measured / all-reduce model; what bounds it), "
           f"`{d['topology']['name']}` with {d['topology']['knobs']['sip.topology']} cube links, "
           f"buffers in {pts[0]['buffer'].upper()}; the fastest at each size in bold:", "",
           "| algorithm | PEs | " + " | ".join(size(s) + " per PE" for s in sizes) + " |",
           "|---|---:|" + "---|" * len(sizes)]
    for a in algos:
        cells = []
        for s in sizes:
            p = at.get((a, s))
            if not p:
                cells.append("-")
                continue
            v = us(p["latency_ns"])
            v = f"**{v}**" if best[s] is p else v
            cells.append(f"{v} ({ratio(p['measured_over_analytic'])}; {p['model']['regime']})")
        n = next(p["p"] for p in pts if p["algo"] == a)
        out.append(f"| `{a}` | {n} | " + " | ".join(cells) + " |")
    fastest = {}
    for s in sizes:
        fastest.setdefault(best[s]["algo"], []).append(size(s))
    out += ["", "Fastest: " + "; ".join(f"`{a}` at {' and '.join(v)}"
                                        for a, v in fastest.items()) + "."]
    return "\n".join(out) + "\n\n" + source("allreduce")


def fig_llm_70b_time():
    """docs/user_guide.md: where the 70B token's time and energy go, by op class."""
    d = result("llm_70b")
    m = d["metrics"]
    t = {k: v["total_ns"] for k, v in m["op_classes_rank0"].items()}
    e = m["j_per_token_by_op_class"]
    total_t, total_e = sum(t.values()), sum(e.values())
    rf = m["roofline"]
    terms = {"the busiest rank's native GEMM tiles": rf["gemm_tile_ns"],
             "the busiest rank's HBM reads": rf["hbm_ns"],
             "the busiest rank's flops at peak": rf["compute_ns"]}
    bound_by = max(terms, key=terms.get)
    out = ["```sh", command(d), "```", "",
           "| op class | rank 0's time | share | energy per token | share |",
           "|---|---:|---:|---:|---:|"]
    for k in ("gemm", "attention", "allreduce", "norm_elementwise"):
        out.append(f"| {OP_CLASS[k]} | {ns(t[k])} | {pct(t[k] / total_t)} | {joule(e[k])} | "
                   f"{pct(e[k] / total_e)} |")
    out += ["", f"The roofline bound, {ns(rf['bound_ns'])}, is {bound_by}: a batch-1 row "
            f"occupies a whole native tile. The busiest rank's HBM reads alone take "
            f"{ns(rf['hbm_ns'])}, its flops at peak {ns(rf['compute_ns'])}. HBM bandwidth "
            f"utilisation over the token: {pct(m['hbm_util'])}.", ""]
    return "\n".join(out) + "\n" + source("llm_70b")


def fig_sip_link_whatif():
    """docs/user_guide.md: the 70B token with twice the SIP-link bandwidth."""
    names = ["llm_70b", "llm_70b_sip_link_128"]
    docs = [result(n) for n in names]
    base = docs[0]["metrics"]["tokens_per_s"]
    out = ["```sh", command(docs[1]), "```", "",
           "| `system.sip_link.bandwidth_gbps` | tokens/s | vs the default | all-reduce, mean | "
           "rank 0's time in all-reduces |", "|---:|---:|---:|---:|---:|"]
    for d in docs:
        m = d["metrics"]
        mark = " (default)" if not d["topology"]["overrides"] else ""
        out.append(f"| {d['topology']['knobs']['system.sip_link.bandwidth_gbps']}{mark} | "
                   f"{m['tokens_per_s']:.1f} | {change(m['tokens_per_s'], base)} | "
                   f"{ns(m['allreduce_measured_ns'])} | {pct(shares(m)[2])} |")
    return "\n".join(out) + "\n\n" + source(*names)


def fig_residual():
    """docs/user_guide.md: one 70B layer with the residual stream replicated and sharded."""
    names = ["llm_70b_layer_replicated", "llm_70b_layer_sharded"]
    docs = [result(n) for n in names]
    out = ["```sh", command(docs[1]), "```", "",
           "| residual stream | latency (1 layer + LM head) | bound | latency / bound | "
           "J per token (1 layer + LM head) |", "|---|---:|---:|---:|---:|"]
    for d in docs:
        m = d["metrics"]
        out.append(f"| {m['residual']} | {ns(m['latency_per_token_ns'])} | "
                   f"{ns(m['roofline']['bound_ns'])} | {ratio(m['latency_over_bound'])} | "
                   f"{joule(m['j_per_token'])} |")
    choice = result("llm_70b")["metrics"]["residual_choice"]
    out += ["", f"For the whole 80-layer token (`{command(result('llm_70b'))}`) the bench "
            f"chose: \"{choice}\".", ""]
    return "\n".join(out) + "\n" + source(*names, "llm_70b")


def fig_ccl_energy():
    """docs/user_guide.md: dynamic energy of an all-reduce by buffer, algorithm, topology."""
    d = result("ccl_energy")
    pts = [p for p in d["points"] if not p.get("skipped")]
    topos = list(dict.fromkeys(p["topology"] for p in pts))
    algos = list(dict.fromkeys(p["algo"] for p in pts))
    bufs = list(dict.fromkeys(p["buffer"] for p in pts))
    at = {(p["topology"], p["algo"], p["buffer"]): p for p in pts}
    names = {"tcm": "TCM", "sram": "SRAM", "hbm": "HBM"}
    pes = {a: next(p["p"] for p in pts if p["algo"] == a) for a in algos}
    head = "| buffer | " + " | ".join(f"`{a}` ({pes[a]} PEs) on " + " / ".join(topos)
                                      for a in algos) + \
        f" | dominant dynamic class and its share, {' / '.join(algos)} on {topos[-1]} |"
    out = ["```sh", command(d), "```", "",
           f"Dynamic pJ per reduced byte at {size(pts[0]['bytes_per_pe'])} per PE "
           "(measured; the energy model's value beside it where they differ):", "",
           head, "|---|" + "---:|" * len(algos) + "---|"]
    for b in bufs:
        cells = []
        for a in algos:
            vals = []
            for t in topos:
                p = at.get((t, a, b))
                if not p:
                    vals.append("-")
                    continue
                v = f"{p['dynamic_pj_per_byte']:.1f}"
                if abs(p["model_dynamic_pj_per_byte"] / p["dynamic_pj_per_byte"] - 1) > 0.005:
                    v += f" ({p['model_dynamic_pj_per_byte']:.1f})"
                vals.append(v)
            cells.append(" / ".join(vals))
        dominant = []
        for a in algos:
            p = at.get((topos[-1], a, b))
            if not p:
                dominant.append("-")
                continue
            by = {k: v["dynamic_pj"] for k, v in p["energy"]["by_class"].items()}
            top = max(by, key=by.get)
            dominant.append(f"{top} {pct(by[top] / sum(by.values()))}")
        out.append(f"| {names.get(b, b)} | " + " | ".join(cells) + f" | {' / '.join(dominant)} |")
    ring = at.get((topos[-1], algos[0], bufs[0]))
    if ring:
        out += ["", f"With the static power over its latency, `{algos[0]}` in "
                f"{names.get(bufs[0], bufs[0])} on {topos[-1]} costs {ring['pj_per_byte']:.1f} pJ "
                f"per reduced byte in all, against {ring['dynamic_pj_per_byte']:.1f} dynamic."]
    return "\n".join(out) + "\n\n" + source("ccl_energy")


def model_error_studies():
    with open(os.path.join(ROOT, "docs", "model_error.json"), encoding="utf-8") as f:
        return json.load(f)["studies"]


def fig_ccl_by_algorithm():
    """docs/models.md: ccl-sweep's measured/model by algorithm, from docs/model_error.json."""
    rows = [r for s in model_error_studies() if s["study"] == "ccl-sweep" for r in s["rows"]]
    lo, hi = model_error.BAND
    by = {}
    for r in rows:
        algo = dict(kv.split("=", 1) for kv in r["point"].split())["algo"]
        by.setdefault(algo, []).append(r["ratio"])
    out = [f"| algorithm | lowest | median | highest | outside [{lo}, {hi}] |",
           "|---|---:|---:|---:|---:|"]
    for algo, r in sorted(by.items(), key=lambda kv: statistics.median(kv[1])):
        r.sort()
        n_out = sum(1 for x in r if not lo <= x <= hi)
        out.append(f"| `{algo}` | {r[0]:.2f} | {statistics.median(r):.2f} | {r[-1]:.2f} | "
                   f"{n_out} of {len(r)} |")
    versions = sorted({s["kernbench_version"] for s in model_error_studies()
                       if s["study"] == "ccl-sweep"})
    return ("\n".join(out) + "\n\n<sub>Generated by `scripts/readme_figures.py` from "
            f"`docs/model_error.json`, every ccl-sweep point (kernbench {', '.join(versions)})."
            "</sub>\n")


def fig_model_points():
    """docs/models.md: every attention and llm point of docs/model_error.json."""
    out = ["| study | point | measured | model | measured / model |", "|---|---|---:|---:|---:|"]
    for s in model_error_studies():
        if not s["study"].startswith(("gqa", "llm")):
            continue
        for r in s["rows"]:
            out.append(f"| `{s['study']}` | {r['point'] or '-'} | {ns(r['measured_ns'])} | "
                       f"{ns(r['model_ns'])} | {ratio(r['ratio'])} |")
    versions = sorted({s["kernbench_version"] for s in model_error_studies()
                       if s["study"].startswith(("gqa", "llm"))})
    return ("\n".join(out) + "\n\n<sub>Generated by `scripts/readme_figures.py` from "
            f"`docs/model_error.json` (kernbench {', '.join(versions)}).</sub>\n")


def fig_fidelity_wall():
    """docs/user_guide.md: how long the committed fidelity result took."""
    with open(os.path.join(ROOT, "docs", "fidelity.json"), encoding="utf-8") as f:
        doc = json.load(f)
    return (f"The committed `docs/fidelity.json` took {doc['wall_s'] / 60:.0f} min of wall time "
            f"({doc['kernbench_version']}); `--param quick=1` runs small shapes of the same "
            "kinds.\n")


FIGURES = {
    "llm_decode": fig_llm_decode,
    "cube_link_whatif": fig_cube_link_whatif,
    "allreduce": fig_allreduce,
    "llm_70b_time": fig_llm_70b_time,
    "sip_link_whatif": fig_sip_link_whatif,
    "residual": fig_residual,
    "ccl_energy": fig_ccl_energy,
    "ccl_by_algorithm": fig_ccl_by_algorithm,
    "model_points": fig_model_points,
    "fidelity_wall": fig_fidelity_wall,
}


def render(name):
    """The body of section name (figures:X, model_error or fidelity)."""
    if name.startswith("figures:"):
        fn = FIGURES.get(name[len("figures:"):])
        if fn is None:
            raise Stale(f"no figure named {name[len('figures:'):]!r} "
                        f"(readme_figures.py has {', '.join(FIGURES)})")
        return fn()
    if name == "model_error":
        return model_error.table(model_error_studies())
    if name == "fidelity":
        with open(os.path.join(ROOT, "docs", "fidelity.json"), encoding="utf-8") as f:
            return fidelity_table.table(json.load(f))
    if name.startswith("example:"):
        return example_listing(name[len("example:"):])
    raise Stale(f"no generator for a {name!r} section")


def example_listing(example):
    """examples/EXAMPLE/main.cpp as a C++ code block: the program a doc shows is the one
    scripts/check_examples.sh builds against the installed package and runs."""
    path = os.path.join(ROOT, "examples", example, "main.cpp")
    if not os.path.isfile(path):
        raise Stale(f"no examples/{example}/main.cpp")
    with open(path, encoding="utf-8") as f:
        return "```cpp\n" + f.read() + "```\n"


def docs():
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def main(argv):
    if argv[:1] == ["run"]:
        return cmd_run(argv[1:])
    if argv not in ([], ["--check"]):
        sys.exit(__doc__)
    check = argv == ["--check"]
    stale = []
    for path in docs():
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = text
        names = doc_sections.names(text)
        for name in sorted({n for n in names if names.count(n) > 1}):
            stale.append(f"{rel}: section {name} appears {names.count(name)} times")
        for name in dict.fromkeys(names):
            try:
                body = render(name)
                new = doc_sections.replace(new, name, body, rel)
            except (Stale, ValueError, KeyError, OSError) as e:
                stale.append(f"{rel}: section {name}: {e}")
                continue
            if check and doc_sections.body(text, name, rel) != doc_sections.body(new, name, rel):
                stale.append(f"{rel}: section {name} is stale "
                             "(rewrite it: /usr/bin/python3 scripts/readme_figures.py)")
        if new != text and not check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"rewrote {rel}")
    for s in stale:
        print("readme_figures.py: " + s, file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
