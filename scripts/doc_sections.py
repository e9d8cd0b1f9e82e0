#!/usr/bin/python3
"""Generated sections of the Markdown docs, shared by the scripts that write them.

A generated section is the text between a line "<!-- NAME:begin -->" and a line
"<!-- NAME:end -->" (each marker alone on its line, so a marker quoted inside a sentence
is not one); a script owns every section of its NAME (fidelity_table.py "fidelity",
model_error.py "model_error", readme_figures.py "figures:*") and rewrites what lies
between the two lines, leaving the rest of the file as it is.
"""
import re

_BEGIN = re.compile(r"^<!-- ([A-Za-z0-9_:.-]+):begin -->$", re.M)


def markers(name):
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def names(text):
    """The names of the sections in text, in order."""
    return _BEGIN.findall(text)


def _span(text, name, where):
    """(start, end) of section name's content in text: after its begin line, up to its
    end line. Raises ValueError naming where when the section is missing or unclosed."""
    begin, end = markers(name)
    b = re.search("^" + re.escape(begin) + "$\n?", text, re.M)
    e = re.search("^" + re.escape(end) + "$", text[b.end():], re.M) if b else None
    if not b or not e:
        raise ValueError(f"{where}: no {begin} ... {end} section")
    return b.end(), b.end() + e.start()


def body(text, name, where="the file"):
    """The current content of section name in text."""
    start, stop = _span(text, name, where)
    return text[start:stop]


def replace(text, name, content, where="the file"):
    """text with section name's content replaced (a final newline is added if missing)."""
    start, stop = _span(text, name, where)
    if content and not content.endswith("\n"):
        content += "\n"
    return text[:start] + content + text[stop:]


def write(path, name, content):
    """Rewrite section name of the file at path with content."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    new = replace(text, name, content, path)
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
