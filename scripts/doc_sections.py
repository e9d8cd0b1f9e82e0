#!/usr/bin/python3
"""Generated sections of the Markdown docs, shared by the scripts that write them.

A generated section is the text between a "<!-- NAME:begin -->" line and a
"<!-- NAME:end -->" line; a script owns every section of its NAME (fidelity_table.py
"fidelity", model_error.py "model_error", readme_figures.py "figures:*") and rewrites
what lies between the two lines, leaving the rest of the file as it is.
"""
import re

_BEGIN = re.compile(r"<!-- ([A-Za-z0-9_:.-]+):begin -->")


def markers(name):
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def names(text):
    """The names of the sections in text, in order."""
    return _BEGIN.findall(text)


def body(text, name, where="the file"):
    """The current content of section name in text."""
    begin, end = markers(name)
    if begin not in text or end not in text.split(begin, 1)[1]:
        raise ValueError(f"{where}: no {begin} ... {end} section")
    return text.split(begin, 1)[1].split(end, 1)[0][1:]


def replace(text, name, content, where="the file"):
    """text with section name's content replaced (a final newline is added if missing).

    Raises ValueError naming where when the section is missing or unclosed."""
    begin, end = markers(name)
    if begin not in text or end not in text.split(begin, 1)[1]:
        raise ValueError(f"{where}: no {begin} ... {end} section")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    if content and not content.endswith("\n"):
        content += "\n"
    return head + begin + "\n" + content + end + tail


def write(path, name, content):
    """Rewrite section name of the file at path with content."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    new = replace(text, name, content, path)
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
