#!/usr/bin/python3
"""The fast fidelity's error against the exact model: docs/ARCHITECTURE.md's table
(section 1.6), generated from a `kernbench --bench fidelity` result.

usage: scripts/fidelity_table.py RESULT.json [--doc docs/ARCHITECTURE.md]

    ./build/kernbench --bench fidelity --json docs/fidelity.json     # about 40 min
    /usr/bin/python3 scripts/fidelity_table.py docs/fidelity.json --doc docs/ARCHITECTURE.md

The table goes to stdout, and with --doc between the "<!-- fidelity:begin -->" and
"<!-- fidelity:end -->" lines.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_sections  # noqa: E402


def pct(x):
    return f"{100 * x:+.3f} %"


def table(doc):
    head = ("| workload | points | worst latency error | energy error | wall exact | wall fast "
            "| speedup |\n|---|---:|---:|---:|---:|---:|---:|\n")
    rows = []
    for w in doc["metrics"]["workloads"]:
        rows.append(f"| {w['workload']} | {len(w['points'])} | {pct(w['worst_latency_error'])} | "
                    f"{pct(w['energy_error'])} | {w['exact_wall_s']:.1f} s | "
                    f"{w['fast_wall_s']:.1f} s | {w['speedup']:.1f}x |")
    worst = doc["metrics"]["worst_error"]
    return (head + "\n".join(rows) + f"\n\nWorst error of all: {100 * worst:.3f} % "
            f"({doc['kernbench_version']}; wall times on the machine that made it).\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("result")
    ap.add_argument("--doc")
    a = ap.parse_args()
    with open(a.result) as f:
        doc = json.load(f)
    if doc.get("bench") != "fidelity":
        sys.exit(f"{a.result}: not a fidelity bench result (bench {doc.get('bench')!r})")
    t = table(doc)
    print(t, end="")
    if a.doc:
        try:
            doc_sections.write(a.doc, "fidelity", t)
        except ValueError as e:
            sys.exit(str(e))


if __name__ == "__main__":
    main()
