#!/usr/bin/env python3
"""The figures scripts/multi-gpu.sh reports, from the documents it wrote:

  compare ALONE.json PARALLEL.json    one GPU's device figures, alone and beside the others
  hostlink RUN.json...                pinned host<->device figures per GPU and their spread
  concurrent EXPECTED RUN.json...     tasks started as a launcher does: each measured its own GPU
  peer PEER.json [CHECK_FIGURES.json] the peer matrix, against each link's theoretical figure
  checks FILE.json...                 gmlab check runs (--json output): wall time, verdict, what was named

Each prints a table and exits 1 when what it checks does not hold."""
import json
import statistics
import sys

# Summary figures that are measurements (not sizes, counts or settings).
MEASURED_SUFFIXES = ("_gbs", "_ns", "_us", "_ms", "_cycles", "_speedup", "_speedup_best", "_speedup_fitting")
DEVICE_EXPERIMENTS = ("stream", "l2_persist", "carveout", "cache_hints", "tma_copy")


def load(path):
    with open(path) as f:
        return json.load(f)


def measured(doc, experiments=DEVICE_EXPERIMENTS):
    out = {}
    for r in doc.get("results", []):
        name = r["experiment"]["name"]
        if experiments and name not in experiments:
            continue
        for k, v in r.get("summary", {}).items():
            if isinstance(v, (int, float)) and k.endswith(MEASURED_SUFFIXES) and v:
                out[f"{name}.{k}"] = float(v)
    return out


def compare(alone_path, parallel_path, limit=0.02):
    a, p = measured(load(alone_path)), measured(load(parallel_path))
    common = sorted(set(a) & set(p))
    if not common:
        print("no common figures")
        return 1
    devs = sorted(((p[k] / a[k] - 1, k) for k in common), key=lambda t: -abs(t[0]))
    within = sum(1 for d, _ in devs if abs(d) <= limit)
    dev_a = load(alone_path)["device"]
    print(f"{dev_a['name']} device {dev_a.get('ordinal')}: {within} of {len(common)} figures within "
          f"{limit:.0%} of alone; median |deviation| {statistics.median(abs(d) for d, _ in devs):.2%}")
    for d, k in devs[:6]:
        print(f"  {k:55s} alone {a[k]:12.5g} parallel {p[k]:12.5g} {d:+.2%}")
    return 0 if within == len(common) else 1


def hostlink(paths):
    keys = ("pinned_h2d_peak_gbs", "pinned_d2h_peak_gbs", "pageable_h2d_peak_gbs", "pageable_d2h_peak_gbs")
    rows = {}
    for path in paths:
        doc = load(path)
        for r in doc.get("results", []):
            if r["experiment"]["name"] == "transfer":
                rows[doc["device"].get("ordinal")] = {k: r["summary"].get(k) for k in keys}
    print("host-link figures (they share the host's memory and PCIe root when measured at once), GB/s:")
    print("  device " + " ".join(f"{k:>22s}" for k in keys))
    for d, v in sorted(rows.items()):
        print(f"  {d:6} " + " ".join(f"{v[k] or float('nan'):22.4g}" for k in keys))
    for k in keys:
        vals = [v[k] for v in rows.values() if v[k]]
        if len(vals) > 1:
            print(f"  {k}: min {min(vals):.4g}, max {max(vals):.4g}, spread {(max(vals) - min(vals)) / max(vals):.1%}")
    return 0


def concurrent(expected, paths):
    want = [int(x) for x in expected.split(",")]
    seen = []
    for path in paths:
        d = load(path)["device"]
        seen.append((d.get("ordinal"), d.get("uuid")))
        print(f"  {path}: device {d.get('ordinal')} {d.get('uuid')}")
    ok = sorted(o for o, _ in seen) == sorted(want) and len({u for _, u in seen}) == len(seen)
    print(f"  each task measured its own GPU: {'yes' if ok else 'NO'} (expected devices {want})")
    return 0 if ok else 1


def pair_theoretical(a, b):
    """As gmlab check computes it (tools/cli/check/check_measure.cpp)."""
    na = a.get("health", {}).get("nvlink", {})
    nb = b.get("health", {}).get("nvlink", {})
    rate = min(na.get("link_gbs", 0), nb.get("link_gbs", 0))
    if rate > 0:
        bdf = lambda s: (s or "-").split(":", 1)[-1].lower()  # NVML and CUDA write the domain with 8 and 4 digits
        direct = sum(1 for l in na.get("links", []) if l.get("active") and bdf(l.get("remote_pci_bus_id")) == bdf(b.get("pci_bus_id")))
        return (direct or min(na.get("active_links", 0), nb.get("active_links", 0))) * rate, "nvlink"
    ha = a.get("theoretical", {}).get("host_link_gbs", 0)
    hb = b.get("theoretical", {}).get("host_link_gbs", 0)
    return (min(ha, hb), "pcie (through the host)") if ha and hb else (0, "unknown")


def peer(peer_path, figures_path=None):
    doc = load(peer_path)
    res = next(r for r in doc["results"] if r["experiment"]["name"] == "peer")
    gpus = {}
    if figures_path:
        fig = load(figures_path)
        fig = fig.get("figures", fig)
        gpus = {g["ordinal"]: g for g in fig.get("gpus", [])}
        for o, g in sorted(gpus.items()):
            nv = g.get("health", {}).get("nvlink", {})
            pcie = g.get("health", {}).get("pcie", {})
            print(f"  GPU {o}: NVLink {nv.get('active_links', 0)} active links, NVML version {nv.get('nvml_version', '-')}, "
                  f"{nv.get('link_gbs', 0)} GB/s per link and direction; PCIe gen {pcie.get('current_generation')}"
                  f"/{pcie.get('max_generation')} x{pcie.get('current_width')}/{pcie.get('max_width')}")
    series = {s.get("variant"): s for s in res["series"]}
    devs = sorted({int(p["values"]["src"]) for p in series["copy"]["points"]})
    for variant, field, unit in (("copy", "bandwidth_gbs", "GB/s"), ("kernel_read", "bandwidth_gbs", "GB/s"),
                                 ("bidirectional", "bandwidth_gbs", "GB/s"), ("latency", "latency_us", "us")):
        if variant not in series:
            continue
        m = {(int(p["values"]["src"]), int(p["values"]["dst"])): (p["values"][field] if field in p["values"] else p[field])
             for p in series[variant]["points"]}
        print(f"{variant} ({unit}), rows: source, columns: destination")
        print("        " + "".join(f"{d:>10}" for d in devs))
        for s in devs:
            print(f"  {s:5} " + "".join(f"{m[(s, d)]:10.4g}" if (s, d) in m else f"{'-':>10}" for d in devs))
    for variant, what in (("all_to_one", "every other GPU copying to it at once"),
                          ("one_to_all", "it copying to every other GPU at once")):
        if variant in series:
            print(f"{variant} (GB/s into or out of each GPU, {what}, copy engines):")
            for p in series[variant]["points"]:
                print(f"  GPU {int(p['x'])}: {p['bandwidth_gbs']:8.4g}")
    if gpus:
        print("copy engine against each link's theoretical figure (per direction):")
        for p in series["copy"]["points"]:
            s, d = int(p["values"]["src"]), int(p["values"]["dst"])
            if s in gpus and d in gpus:
                t, how = pair_theoretical(gpus[s], gpus[d])
                frac = f"{p['bandwidth_gbs'] / t:.1%}" if t else "-"
                print(f"  {s}->{d}: {p['bandwidth_gbs']:8.4g} GB/s of {t:.4g} ({how}): {frac}")
    return 0


def checks(paths):
    bad = 0
    for path in paths:
        doc = load(path)
        v, f = doc["verdicts"], doc["figures"]
        named = v["node"]["reasons"]
        print(f"  {path}: {f.get('wall_s', float('nan')):.1f} s, {v['node']['verdict']} (exit {v['node']['exit_code']})")
        for r in named:
            print(f"    {r}")
        bad += f.get("wall_s", 0) > 60
    return 1 if bad else 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd, args = argv[1], argv[2:]
    if cmd == "compare":
        return compare(*args[:2])
    if cmd == "hostlink":
        return hostlink(args)
    if cmd == "concurrent":
        return concurrent(args[0], args[1:])
    if cmd == "peer":
        return peer(*args[:2])
    if cmd == "checks":
        return checks(args)
    print(__doc__)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (OSError, ValueError, KeyError, StopIteration) as e:
        # A step before this one did not write its documents: say which, in one line.
        print(f"  {sys.argv[1] if len(sys.argv) > 1 else ''}: cannot read what it needs: {type(e).__name__}: {e}")
        sys.exit(1)
