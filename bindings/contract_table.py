#!/usr/bin/env python3
"""Prints the Markdown table of bindings/contract.json that bindings/CONTRACT.md
holds between its "contract-table" markers; with --write, puts it there.
(The Python binding's tests check that CONTRACT.md holds the current table.)"""

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
LANGUAGES = (("python", "Python"), ("java", "Java"), ("csharp", "C#"), ("go", "Go"))
BEGIN, END = "<!-- contract-table: begin -->", "<!-- contract-table: end -->"


def cell(row, language):
    entry = row[language]
    error = entry["error"]
    text = "`%s`" % entry["input"].replace("|", "\\|")
    if error is None:
        return text + " → reads"
    status = row.get("status")
    if status and (error in ("GmlabException", "*gmlab.Error") or error.endswith("Error") and language == "python"
                   and error not in ("TypeError", "KeyError", "IndexError", "FileNotFoundError")):
        return "%s → `%s` (%s)" % (text, error, status)
    return "%s → `%s`" % (text, error)


def table(document):
    lines = ["| row | what | the message holds | " + " | ".join(name for _, name in LANGUAGES) + " |",
             "|---|---|---|" + "---|" * len(LANGUAGES)]
    for row in document["rows"]:
        holds = ", ".join("“%s”" % t for t in row.get("contains", [])) or "—"
        if row.get("absent"):
            holds += "; never " + ", ".join("“%s”" % t for t in row["absent"])
        extra = {lang: row[lang].get("contains") for lang, _ in LANGUAGES if row[lang].get("contains")}
        for lang, texts in extra.items():
            holds += "; %s: %s" % (dict(LANGUAGES)[lang], ", ".join("“%s”" % t for t in texts))
        lines.append("| `%s` | %s | %s | %s |" % (row["id"], row["what"], holds,
                                                 " | ".join(cell(row, lang) for lang, _ in LANGUAGES)))
    return "\n".join(lines) + "\n"


def main():
    text = table(json.loads((HERE / "contract.json").read_text(encoding="utf-8")))
    if "--write" not in sys.argv:
        sys.stdout.write(text)
        return
    doc = HERE / "CONTRACT.md"
    md = doc.read_text(encoding="utf-8")
    head, rest = md.split(BEGIN + "\n", 1)
    _, tail = rest.split(END, 1)
    doc.write_text(head + BEGIN + "\n" + text + END + tail, encoding="utf-8")


if __name__ == "__main__":
    main()
