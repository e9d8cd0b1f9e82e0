#!/usr/bin/python3
"""How far each study's measurement lies from its analytic model: the model_error table
of docs/models.md, generated from result files and kept as a compact extract.

usage: scripts/model_error.py RESULT.json... [--out docs/model_error.json] [--doc docs/models.md]
       scripts/model_error.py --from docs/model_error.json [RESULT.json...] [--out ...] [--doc ...]

RESULT.json are kernbench --json results of the studies that print a model beside each
measurement: gemm-sweep (window_ns vs window_ns_analytic), allreduce or ccl-sweep
(latency_ns vs analytic_ns, with the bench's model_gap reason outside [0.9, 1.1]), the
gqa benches and llm (latency_ns vs model_ns; a point whose model is only a bound is
counted with the bound's reason). Results of one study are merged into one row. The extract (--out) keeps, per
study, each point's label, measured and model ns, ratio and reason, and the command that
made it; --from rebuilds the table from a committed extract, in which RESULT.json files
given too replace the studies they are results of. The table goes to stdout,
and with --doc (alias --readme) between the file's "<!-- model_error:begin -->"
and "<!-- model_error:end -->" lines (scripts/doc_sections.py); scripts/readme_figures.py
--check tells when that section is not the extract's table.

    ./build/kernbench --bench gemm-sweep --json out/gemm_sweep.json
    ./build/kernbench --bench ccl-sweep --json out/ccl_sweep.json
    /usr/bin/python3 scripts/model_error.py out/gemm_sweep.json out/ccl_sweep.json \\
        --out docs/model_error.json --doc docs/models.md
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_sections  # noqa: E402

BAND = (0.9, 1.1)


def label(p, keys):
    return " ".join(f"{k}={p[k]}" for k in keys if k in p)


def extract(doc):
    """(study, rows) of one result; a row: label, measured_ns, model_ns, ratio, reason."""
    bench = doc.get("bench", "?")
    rows = []
    for p in doc.get("points", []):
        if p.get("skipped"):
            continue
        if "window_ns_analytic" in p:
            m, a = p["window_ns"], p["window_ns_analytic"]
            lab = label(p, ["M", "K", "N", "variant"])
        elif "analytic_ns" in p and "latency_ns" in p:
            m, a = p["latency_ns"], p["analytic_ns"]
            lab = label(p, ["topology", "algo", "buffer", "bytes_per_pe"])
        elif "model_ns" in p and "latency_ns" in p:
            m, a = p["latency_ns"], p["model_ns"]
            lab = label(p, ["case", "variant", "kv_per_cube", "S_kv", "S", "model", "batch",
                            "context", "layers"])
        else:
            continue
        if not a:
            continue
        model = p.get("model") if isinstance(p.get("model"), dict) else {}
        reason = p.get("model_gap") or ""
        if not reason and model.get("bound"):
            # A model that is only a bound says why; keep its first clause.
            reason = "a bound, not a model: " + model.get("bound_reason", "").split(", so")[0]
        if not reason and model.get("unpriced"):
            unpriced = model["unpriced"]
            reason = "; ".join(unpriced) if isinstance(unpriced, list) else str(unpriced)
        rows.append({"point": lab, "measured_ns": m, "model_ns": a, "ratio": m / a,
                     "reason": reason})
    return bench, rows


def short(reason):
    """A reason's headline: up to its first colon or semicolon (the extract keeps it whole)."""
    if reason.startswith("a bound"):
        return reason
    cut = [i for i in (reason.find(": "), reason.find("; ")) if i > 0]
    return reason[:min(cut)] if cut else reason


def table(studies):
    out = ["| study | points | measured/model: lowest | median | highest | outside "
           f"[{BAND[0]}, {BAND[1]}] | why (points) |",
           "|---|---|---|---|---|---|---|"]
    merged = {}  # study -> its rows, over every result of it, in order
    for s in studies:
        merged.setdefault(s["study"], []).extend(s["rows"])
    for study, rows in merged.items():
        r = sorted(x["ratio"] for x in rows)
        if not r:
            continue
        outside = [x for x in rows if not BAND[0] <= x["ratio"] <= BAND[1]]
        why = {}
        for x in outside:
            key = short(x["reason"]) or "not explained by the bench"
            why[key] = why.get(key, 0) + 1
        reasons = "; ".join(f"{k} ({n})" for k, n in sorted(why.items(), key=lambda kv: -kv[1]))
        out.append(f"| `{study}` | {len(r)} | {r[0]:.2f} | {statistics.median(r):.2f} | "
                   f"{r[-1]:.2f} | {len(outside)} | {reasons or '-'} |")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="*", help="kernbench --json result files")
    ap.add_argument("--from", dest="source", help="a committed extract to rebuild the table from")
    ap.add_argument("--out", help="write the extract here")
    ap.add_argument("--doc", "--readme", dest="doc",
                    help="rewrite the model_error section of this Markdown file")
    args = ap.parse_args(argv)
    if not args.source and not args.results:
        ap.error("give RESULT.json files or --from EXTRACT")
    studies = []
    if args.source:
        with open(args.source, encoding="utf-8") as f:
            studies = json.load(f)["studies"]
    if args.results:
        fresh = []
        for path in args.results:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            bench, rows = extract(doc)
            if not rows:
                sys.exit(f"model_error.py: {path} ({bench}) has no point with a model value")
            fresh.append({"study": bench, "source": os.path.basename(path),
                          "params": doc.get("params", {}),
                          "kernbench_version": doc.get("kernbench_version", ""),
                          "topology": (doc.get("topology") or {}).get("name", ""),
                          "rows": rows})
        # With --from too, the new results replace the extract's of the same studies.
        replaced = {x["study"] for x in fresh}
        studies = [x for x in studies if x["study"] not in replaced] + fresh
    text = table(studies)
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"band": list(BAND), "studies": studies}, f, indent=1, sort_keys=True)
            f.write("\n")
    if args.doc:
        try:
            doc_sections.write(args.doc, "model_error", text)
        except ValueError as e:
            sys.exit(f"model_error.py: {e}")


if __name__ == "__main__":
    main()
