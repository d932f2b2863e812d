#!/usr/bin/env python3
"""The reports in a real browser, and their bad-input paths.

    check_report.py --gmlab PATH --input RUN.json --out DIR [--chromium PATH]

1. Renders RUN.json with `gmlab report --html`, opens it in headless Chromium
   and checks, from the attributes the page's own script sets on <body>, that
   every chart drew and painted pixels and that no error was raised; saves a
   screenshot (DIR/report.png) and the page (DIR/report.html); checks that
   the page opens with "This GPU at a glance" and saves its first screen
   (DIR/glance.png).
2. Does the same for `gmlab compare` of the run against a copy with one point
   made slower, and checks that exactly that point is flagged.
3. Feeds the report broken documents: each must fail with exit 2, a message
   naming the file, and no output file left behind.
Prints one line per check and "N passed, M failed" last.
"""
import argparse
import copy
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAILED'}: {name}{(' - ' + detail) if detail and not ok else ''}")


class BodyAttributes(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.attrs = None

    def handle_starttag(self, tag, attrs):
        if tag == "body" and self.attrs is None:
            self.attrs = dict(attrs)


def chromium_args(chromium, profile):
    # Headless, and quiet on a machine without network access.
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", f"--user-data-dir={profile}"]


def render(chromium, page, screenshot, height):
    profile = tempfile.mkdtemp(prefix="gmlab-chromium-")
    try:
        dom = subprocess.run(chromium_args(chromium, profile) + ["--virtual-time-budget=10000", "--dump-dom", "file://" + page],
                             capture_output=True, text=True, timeout=120).stdout
        subprocess.run(chromium_args(chromium, profile) + [f"--screenshot={screenshot}", f"--window-size=1100,{height}",
                                                           "--virtual-time-budget=10000", "file://" + page],
                       capture_output=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    parser = BodyAttributes()
    parser.feed(dom)
    return parser.attrs or {}


def check_page(name, chromium, page, screenshot, height):
    attrs = render(chromium, page, screenshot, height)
    charts = int(attrs.get("data-charts", "-1"))
    check(f"{name}: the page ran its script", "data-errors" in attrs, str(attrs))
    check(f"{name}: has charts", charts > 0, f"{charts} charts")
    check(f"{name}: every chart drew", attrs.get("data-drawn") == str(charts), f"{attrs.get('data-drawn')} of {charts}")
    check(f"{name}: every canvas has pixels", attrs.get("data-painted") == str(charts), f"{attrs.get('data-painted')} of {charts}")
    check(f"{name}: no errors in the page", attrs.get("data-errors") == "[]", attrs.get("data-errors", ""))
    check(f"{name}: screenshot saved", os.path.exists(screenshot) and os.path.getsize(screenshot) > 10000)
    with open(page) as f:
        text = f.read()
    check(f"{name}: fetches nothing from the network", "src=\"http" not in text and "href=\"http" not in text)


def check_glance(args, text, page):
    """The report opens with "This GPU at a glance": before the device table
    and the first chart, every figure a row, and its first screen saved."""
    at = text.find('<section id="glance">')
    check("report opens with the glance", 0 <= at < text.find('<table class="device">') and at < text.find("<canvas"))
    section = text[at:text.find("</section>", at)]
    rows = section.count("<tr><td>")
    check("the glance has its 15 figures", rows == 15, f"{rows} rows")
    check("the glance names where each figure comes from", section.count('<td class="from">') == 15)
    first_screen = os.path.join(args.out, "glance.png")
    profile = tempfile.mkdtemp(prefix="gmlab-chromium-")
    try:
        subprocess.run(chromium_args(args.chromium, profile) + [f"--screenshot={first_screen}", "--window-size=1100,1000",
                                                                "--virtual-time-budget=10000", "file://" + page],
                       capture_output=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    check("the glance's first screen saved", os.path.exists(first_screen) and os.path.getsize(first_screen) > 10000)


def gmlab(args, *rest):
    return subprocess.run([args.gmlab, *rest], capture_output=True, text=True, timeout=120)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gmlab", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(args.input) as f:
        run = json.load(f)

    page = os.path.join(args.out, "report.html")
    r = gmlab(args, "report", args.input, "--html", page)
    check("report --html exits 0", r.returncode == 0, r.stderr)
    with open(page) as f:
        text = f.read()
    for res in run["results"]:
        name = res["experiment"]["name"]
        check(f"report has a section for {name}", f'<section id="{name}">' in text)
    check_page("report", args.chromium, page, os.path.join(args.out, "report.png"), 24000)
    check_glance(args, text, page)

    # Text and Markdown carry the same content.
    r = gmlab(args, "report", args.input)
    check("text report names every experiment", r.returncode == 0 and all(res["experiment"]["name"] in r.stdout for res in run["results"]))
    r = gmlab(args, "report", args.input, "--markdown")
    check("markdown report has pipe tables", r.returncode == 0 and "\n|---|" in r.stdout.replace("|---|---|", "|---|"))

    # compare: B is A with the first stride_copy point three times slower.
    slower = copy.deepcopy(run)
    target = next(res for res in slower["results"] if res["experiment"]["name"] == "stride_copy")
    p = target["series"][0]["points"][0]
    for k in ("median", "min", "max", "mean"):
        p["time_ms"][k] *= 3
    p["bandwidth_gbs"] /= 3
    p["bandwidth_gbs_min"] /= 3
    p["bandwidth_gbs_max"] /= 3
    b = os.path.join(args.out, "slower.json")
    with open(b, "w") as f:
        json.dump(slower, f)
    r = gmlab(args, "compare", args.input, args.input)
    same = [line for line in r.stdout.splitlines() if line.rstrip().endswith("*")]
    check("compare with itself: nothing flagged", r.returncode == 0 and not same and "1.000" in r.stdout, r.stderr + "\n".join(same))
    r = gmlab(args, "compare", args.input, b)
    flagged = [line for line in r.stdout.splitlines() if line.rstrip().endswith("*")]
    check("compare flags exactly the slower point", r.returncode == 0 and len(flagged) == 1 and "0.333" in flagged[0],
          "\n".join(flagged))
    cpage = os.path.join(args.out, "compare.html")
    r = gmlab(args, "compare", args.input, b, "--html", cpage)
    check("compare --html exits 0", r.returncode == 0, r.stderr)
    check_page("compare", args.chromium, cpage, os.path.join(args.out, "compare.png"), 6000)

    # Broken inputs: exit 2, the file named, no output left.
    bad_dir = tempfile.mkdtemp(prefix="gmlab-bad-")
    with open(args.input) as f:
        raw = f.read()
    missing = copy.deepcopy(run)
    del missing["results"][0]["series"][0]["points"][0]["time_ms"]["median"]
    cases = {
        "not-json.json": ("hello", "not valid JSON"),
        "truncated.json": (raw[: len(raw) // 2], "not valid JSON"),
        "not-gmlab.json": (json.dumps({"schema": "other/1"}), "not a gmlab result"),
        "no-schema.json": (json.dumps({"results": []}), "not a gmlab result"),
        "future.json": (json.dumps(dict(run, schema="gmlab.run/2")), "unknown schema version"),
        "missing-field.json": (json.dumps(missing), "time_ms.median"),
        "empty.json": ("", "is empty"),
    }
    for name, (content, message) in cases.items():
        path = os.path.join(bad_dir, name)
        with open(path, "w") as f:
            f.write(content)
        out = os.path.join(bad_dir, name + ".html")
        r = gmlab(args, "report", path, "--html", out)
        leftovers = [n for n in os.listdir(bad_dir) if n.startswith(name + ".html")]
        check(f"bad input {name}: refused", r.returncode == 2 and path in r.stderr and message in r.stderr and not leftovers,
              f"exit {r.returncode}: {r.stderr.strip()} {leftovers}")
    r = gmlab(args, "report", os.path.join(bad_dir, "does-not-exist.json"))
    check("missing file: refused", r.returncode == 2 and "cannot be read" in r.stderr, r.stderr)
    shutil.rmtree(bad_dir, ignore_errors=True)

    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
