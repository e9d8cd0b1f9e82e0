#!/usr/bin/env python3
"""Checks that docs/ARCHITECTURE.md names only files and symbols that exist.

Every `code span` of the document that looks like a repository path (it starts
with one of the top-level folders, or names a file with a source or data
extension) must exist, as a file, a folder, or a file once `.h`, `.cpp` or
`.yaml` is added (a block named without its extension: `platform/llm/llm_mapping`).
A path with a placeholder (`<name>`, `*`, `N`-style patterns) is a pattern, not
a path, and is skipped.

Every code span that names a C++ symbol as `Scope::name` (the form the document
uses for classes' members and namespaced functions) must occur in the sources
under models/, firmware/, platform/ or tests/ (or, for a CMake target, in
CMakeLists.txt): its last two components as
`Scope::name`, or the scope defining `name` (`class Scope`/`struct Scope` in the
sources and `name` in them too).

And the map of §4.2 ("Where each block lives") has a row for every folder of
models/, firmware/ and platform/.

    python3 scripts/check_architecture.py [DOC]

Exit 0 when everything named exists; 1 otherwise, one line per missing name
(DOC:line: what is missing). Python 3 standard library only.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = ("models/", "firmware/", "platform/", "tests/", "scripts/", "topologies/", "docs/",
       "examples/", ".ci/")
EXTS = (".h", ".cpp", ".py", ".sh", ".yaml", ".json", ".md", ".sv", ".txt")
SOURCE_DIRS = ("models", "firmware", "platform", "tests")
SPAN = re.compile(r"`([^`\n]+)`")
SYMBOL = re.compile(r"^(?:[A-Za-z_]\w*::)+~?[A-Za-z_]\w*(?:\(\))?$")


def sources():
    text = []
    # CMake names targets the same way (KernBench::kernbench).
    for f in ("CMakeLists.txt", "cmake/KernBenchConfig.cmake.in"):
        if os.path.exists(os.path.join(ROOT, f)):
            with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
                text.append(fh.read())
    for d in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                if f.endswith((".h", ".cpp", ".cpp.in")):
                    with open(os.path.join(dirpath, f), encoding="utf-8", errors="replace") as fh:
                        text.append(fh.read())
    return "\n".join(text)


def path_exists(p):
    p = p.rstrip("/")
    full = os.path.join(ROOT, p)
    if os.path.exists(full):
        return True
    return any(os.path.exists(full + ext) for ext in (".h", ".cpp", ".yaml"))


def looks_like_path(s):
    if " " in s or s.startswith("-"):
        return False
    return s.startswith(TOP) or (("/" in s) and s.endswith(EXTS))


def is_pattern(s):
    return any(c in s for c in "<>*{}") or re.search(r"\b[A-Z]\b|\.\.\.", s) is not None


def map_rows_missing(doc, lines):
    """The folders of models/, firmware/ and platform/ with no row in §4.2's map."""
    rows, start = set(), None
    for n, line in enumerate(lines):
        if line.startswith("### 4.2 "):
            start = n
        elif start is not None and line.startswith("#"):
            break
        elif start is not None and line.startswith("| `"):
            rows.update(SPAN.findall(line.split("|")[1]))
    if start is None:
        return [f"{os.path.relpath(doc, ROOT)}: no section 4.2, the map of the folders"]
    out = []
    for top in ("models", "firmware", "platform"):
        for d in sorted(os.listdir(os.path.join(ROOT, top))):
            folder = f"{top}/{d}"
            if os.path.isdir(os.path.join(ROOT, folder)) and folder not in rows:
                out.append(f"{os.path.relpath(doc, ROOT)}:{start + 1}: section 4.2 has no row "
                           f"for the folder {folder}")
    return out


def main(argv):
    doc = argv[1] if len(argv) > 1 else os.path.join(ROOT, "docs", "ARCHITECTURE.md")
    src = sources()
    missing = []
    with open(doc, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    seen = set()
    for n, line in enumerate(lines, 1):
        for span in SPAN.findall(line):
            s = span.strip()
            if (s, "p") in seen or (s, "s") in seen:
                continue
            if looks_like_path(s) and not is_pattern(s):
                seen.add((s, "p"))
                # "file.cpp:12" or "file.h:FUNC" name a place in a file.
                p = re.sub(r":[\w-]+$", "", s)
                if not path_exists(p):
                    missing.append(f"{os.path.relpath(doc, ROOT)}:{n}: no such path: {s}")
            elif SYMBOL.match(s):
                seen.add((s, "s"))
                name = s.replace("()", "")
                parts = name.split("::")
                scope, member = parts[-2], parts[-1]
                if f"{scope}::{member}" in src:
                    continue
                defines = re.search(rf"\b(?:class|struct|namespace|enum class|enum)\s+{scope}\b", src)
                if defines and re.search(rf"\b{re.escape(member)}\b", src):
                    continue
                missing.append(f"{os.path.relpath(doc, ROOT)}:{n}: no such symbol: {s}")
    missing += map_rows_missing(doc, lines)
    for m in missing:
        print(m, file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
