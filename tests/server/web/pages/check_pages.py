#!/usr/bin/env python3
"""The server's pages in a real browser.

    check_pages.py --manifest OUT/manifest.json --out DIR [--chromium PATH]
    check_pages.py --live http://127.0.0.1:PORT --out DIR [--chromium PATH]
    check_pages.py --server GMLAB_SERVER --document RUN.json --out DIR [--chromium PATH]

--manifest: the pages render_pages wrote (page, file, charts expected).
--live: the pages of a running gmlab-server, found by following its own links
from "/" (GPU pages, results, comparisons); the charts expected are the
page's <canvas> elements. Only 127.0.0.1 / localhost addresses are accepted.
--server: starts that gmlab-server on a free 127.0.0.1 port with a fresh
SQLite file, uploads RUN.json three times (as measured, 3% slower, 2% faster)
and twice as another GPU model whose name and notes carry HTML injections,
then checks its live pages as --live does.

For every page: opens it in headless Chromium and checks, from the attributes
the report's script sets on <body>, that every chart drew and painted pixels
and that no error was raised (a page without charts must carry no script);
that the DOM Chromium built has no script element beyond the page's own and no
event-handler attribute (an escaped injection stays text); with --manifest,
saves a screenshot DIR/<page>.png of each page but the injection variants
(live pages and "-evil" pages are the same templates, checked without a second
launch). Prints one line per check and "N passed, M failed" last.
"""
import argparse
import copy
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAILED'}: {name}{(' - ' + detail) if detail and not ok else ''}", flush=True)


class Dom(html.parser.HTMLParser):
    """The body's attributes, script elements, event-handler attributes and links."""

    def __init__(self):
        super().__init__()
        self.body = None
        self.scripts = 0
        self.handlers = []
        self.links = []
        self.canvases = 0
        self.remote = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body" and self.body is None:
            self.body = a
        if tag == "script":
            self.scripts += 1
        if tag == "canvas":
            self.canvases += 1
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        for k, v in attrs:
            if k.lower().startswith("on"):
                self.handlers.append(f"<{tag} {k}={v!r}>")
            if k in ("src", "href") and v and re.match(r"^\s*(https?:)?//", v):
                self.remote.append(v)


def parse(text):
    d = Dom()
    d.feed(text)
    return d


def chromium_args(chromium, profile):
    # Headless, and quiet on a machine without network access.
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", f"--user-data-dir={profile}"]


def render(chromium, url, screenshot, height):
    profile = tempfile.mkdtemp(prefix="gmlab-chromium-")
    try:
        dom = subprocess.run(chromium_args(chromium, profile) + ["--virtual-time-budget=10000", "--dump-dom", url],
                             capture_output=True, text=True, timeout=120).stdout
        if screenshot:
            subprocess.run(chromium_args(chromium, profile) + [f"--screenshot={screenshot}", f"--window-size=1100,{height}",
                                                               "--virtual-time-budget=10000", url],
                           capture_output=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return dom


def check_page(name, chromium, url, source, charts, out, screenshots=True):
    # Tall enough for the whole page: a chart with its heading and table folded is about 650 px.
    # Past 8000 px a screenshot shows nothing a person checks that the shorter
    # one does not, and costs more to paint and encode.
    height = min(max(1400, 900 + 650 * charts), 8000)
    screenshot = os.path.join(out, name + ".png")
    if os.path.exists(screenshot):
        os.remove(screenshot)
    dom = parse(render(chromium, url, screenshot if screenshots else None, height))
    attrs = dom.body or {}
    if charts > 0:
        check(f"{name}: the page ran its script", "data-errors" in attrs, str(attrs))
        check(f"{name}: {charts} charts", attrs.get("data-charts") == str(charts), f"data-charts={attrs.get('data-charts')}")
        check(f"{name}: every chart drew", attrs.get("data-drawn") == str(charts), f"{attrs.get('data-drawn')} of {charts}")
        check(f"{name}: every canvas has pixels", attrs.get("data-painted") == str(charts), f"{attrs.get('data-painted')} of {charts}")
        check(f"{name}: no errors in the page", attrs.get("data-errors") == "[]", attrs.get("data-errors", ""))
        check(f"{name}: only the page's own 3 scripts in the DOM", dom.scripts == 3, f"{dom.scripts} script elements")
    else:
        check(f"{name}: no charts, no script", dom.body is not None and dom.scripts == 0 and "data-charts" not in attrs,
              f"{dom.scripts} script elements, {attrs}")
    check(f"{name}: no event-handler attributes in the DOM", not dom.handlers, "; ".join(dom.handlers[:3]))
    if screenshots:
        check(f"{name}: screenshot saved", os.path.exists(screenshot) and os.path.getsize(screenshot) > 10000)
    src = parse(source)
    check(f"{name}: fetches nothing from the network", not src.remote, ", ".join(src.remote[:3]))


# Loopback only: never through a proxy from the environment.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
INJECTION = '<script>alert(1)</script> "onmouseover=alert(2)'


def fetch(url):
    with OPENER.open(url, timeout=30) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode("utf-8")


def gmreport_escape(text):
    """As gmreport::escape_html writes it."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def live_pages(base, out):
    """Pages of a running server: "/", then the links it shows, a few of each kind."""
    host = urllib.parse.urlsplit(base).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"--live must be a loopback address, not {host}")
    pages, seen, queue = [], set(), ["/"]
    kinds = {}
    while queue and len(pages) < 12:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        url = urllib.parse.urljoin(base, path)
        status, ctype, text = fetch(url)
        check(f"live {path}: 200 text/html", status == 200 and ctype.startswith("text/html"), f"{status} {ctype}")
        kind = path.split("?")[0].strip("/").split("/")[0] or "home"
        if kinds.get(kind, 0) >= 3:  # a few of each kind is enough
            continue
        kinds[kind] = kinds.get(kind, 0) + 1
        name = f"live-{kind}-{kinds[kind]}"
        with open(os.path.join(out, name + ".html"), "w") as f:
            f.write(text)
        dom = parse(text)
        if kind == "home" and "Other " in text:
            check("live home: the injected GPU name shown escaped, never raw",
                  gmreport_escape(INJECTION) in text and INJECTION not in text)
        pages.append({"page": name, "url": url, "source": text, "charts": dom.canvases})
        for href in dom.links:
            target = urllib.parse.urlsplit(urllib.parse.urljoin(url, href))
            if target.hostname != urllib.parse.urlsplit(base).hostname or target.path.startswith("/api/"):
                continue
            p = target.path + ("?" + target.query if target.query else "")
            if p not in seen and re.match(r"^/(gpus?|results?|compare)\b", p):
                queue.append(p)
    # A page that is not there: the error page, with its status.
    try:
        fetch(urllib.parse.urljoin(base, "/compare?a=00000000000000000000000000000000&b=%3Cscript%3E"))
        check("live: a missing result is a 404", False, "answered 200")
    except urllib.error.HTTPError as e:
        body = e.read().decode("utf-8", "replace")
        check("live: a missing result is a 404 page, the id escaped", e.code == 404 and "<script>" not in body, str(e.code))
    return pages


def scaled(run, f):
    """The run as a faster (f > 1) or slower upload: bandwidths times f, times over f."""
    run = copy.deepcopy(run)
    for r in run["results"]:
        for s in r["series"]:
            for p in s["points"]:
                for k in ("bandwidth_gbs", "bandwidth_gbs_min", "bandwidth_gbs_max"):
                    if k in p:
                        p[k] *= f
                t = p["time_ms"]
                for k in ("median", "min", "max", "mean", "stddev"):
                    t[k] /= f
                for k in ("samples", "quantiles"):
                    if k in t:
                        t[k] = [v / f for v in t[k]]
        # Its summary's bandwidths with its points (the server checks them against each other).
        for k, v in r.get("summary", {}).items():
            if k.endswith("_gbs") and "theoretical" not in k:
                r["summary"][k] = v * f
    return run


def start_server(binary, document, out):
    """A fresh server with five uploads; returns (process, base URL)."""
    work = tempfile.mkdtemp(prefix="gmlab-pages-server-")
    log = open(os.path.join(out, "live-server.log"), "w")
    proc = subprocess.Popen([binary, "--db", os.path.join(work, "results.sqlite"), "--listen", "127.0.0.1:0",
                             "--write-rate", "0", "--read-rate", "0"], stdout=subprocess.PIPE, stderr=log, text=True)
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not m:
        proc.kill()
        raise SystemExit(f"gmlab-server did not say where it listens: {line!r}")
    base = f"http://127.0.0.1:{m.group(1)}"
    with open(document) as f:
        run = json.load(f)
    other = scaled(run, 0.5)
    other["device"]["name"] = "Other " + INJECTION + " GPU"
    other["results"][0].setdefault("notes", []).append("note " + INJECTION)
    uploads = [run, scaled(run, 0.97), scaled(run, 1.02), other, scaled(other, 1.1)]
    for i, doc in enumerate(uploads):
        req = urllib.request.Request(base + "/api/v1/results", data=json.dumps(doc).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with OPENER.open(req, timeout=60) as r:
                check(f"live: upload {i + 1} stored", r.status == 201)
        except urllib.error.HTTPError as e:
            check(f"live: upload {i + 1} stored", False, f"{e.code} {e.read()[:300]!r}")
    return proc, base, work


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest")
    ap.add_argument("--live")
    ap.add_argument("--server")
    ap.add_argument("--document")
    ap.add_argument("--out", required=True)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args()
    if sum(map(bool, (args.manifest, args.live, args.server))) != 1 or bool(args.server) != bool(args.document):
        ap.error("give --manifest, --live, or --server with --document")
    os.makedirs(args.out, exist_ok=True)
    proc = work = None
    if args.server:
        proc, args.live, work = start_server(args.server, args.document, args.out)
    try:
        run_checks(args)
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=30)
            shutil.rmtree(work, ignore_errors=True)
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


def run_checks(args):
    if args.manifest:
        with open(args.manifest) as f:
            pages = json.load(f)
        for p in pages:
            with open(p["file"]) as f:
                p["source"] = f.read()
            p["url"] = "file://" + os.path.abspath(p["file"])
        check("manifest lists pages", len(pages) > 0)
    else:
        pages = live_pages(args.live, args.out)
        check("live: found the home, GPU, result and compare pages",
              {p["page"].rsplit("-", 1)[0] for p in pages} >= {"live-home", "live-compare"} and len(pages) >= 4,
              ", ".join(p["page"] for p in pages))
    # The live pages are the same templates as the rendered ones, whose
    # screenshots the --manifest run keeps: here the page's own account of its
    # charts (drawn, painted, no errors) is checked, without a second launch.
    # The injection variants ("-evil") are the same templates again: their
    # DOM is what matters (escaped text, no handlers), so they take no
    # screenshot either.
    for p in pages:
        check_page(p["page"], args.chromium, p["url"], p["source"], int(p["charts"]), args.out,
                   screenshots=bool(args.manifest) and "-evil" not in p["page"])


if __name__ == "__main__":
    sys.exit(main())
