// The server's pages without a server: builds stored runs from a real run
// document (and modified copies as more uploads and as a second GPU model whose
// name, notes and a series name carry HTML injections; a GPU page with and
// without the uploads' counter rows), renders every page to
// OUT_DIR, and checks their structure and escaping. Writes OUT_DIR/manifest.json
// (page, file, charts expected) for check_pages.py, which opens them in Chromium.
//
//     render_pages RUN.json OUT_DIR
//
// Prints one line per check and "N passed, M failed" last.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chart_specs.hpp"
#include "compare.hpp"
#include "html_report.hpp"

#include "storage/aggregate.hpp"
#include "storage/counter_rows.hpp"
#include "web/pages.hpp"

using nlohmann::json;
using namespace gmserver;

namespace {

int passed = 0, failed = 0;

void check(const std::string &name, bool ok, const std::string &detail = "") {
    (ok ? passed : failed) += 1;
    std::cout << (ok ? "ok: " : "FAILED: ") << name << (ok || detail.empty() ? "" : " - " + detail) << "\n";
}

const std::string kScript = "<script>alert(1)</script>";
const std::string kAttr = "\"onmouseover=alert(2)";
const std::string kInjection = kScript + " " + kAttr;
const std::string kScriptEscaped = "&lt;script&gt;alert(1)&lt;/script&gt;";
const std::string kAttrEscaped = "&quot;onmouseover=alert(2)";

std::size_t count(const std::string &s, const std::string &what) {
    std::size_t n = 0;
    for (std::size_t i = 0; (i = s.find(what, i)) != std::string::npos; i += what.size()) ++n;
    return n;
}

// A page split into its markup outside <script> elements and the elements'
// contents: HTML entities mean nothing inside a script, so escaping is
// checked outside and the element boundaries inside.
struct Split {
    std::string markup;
    std::vector<std::string> scripts;
};

Split split_scripts(const std::string &page) {
    Split out;
    std::size_t at = 0;
    for (;;) {
        const std::size_t open = page.find("<script", at);
        if (open == std::string::npos) break;
        const std::size_t body = page.find('>', open);
        const std::size_t close = page.find("</script>", body);
        if (body == std::string::npos || close == std::string::npos) break;
        out.markup += page.substr(at, open - at);
        out.scripts.push_back(page.substr(body + 1, close - body - 1));
        at = close + 9;
    }
    out.markup += page.substr(at);
    return out;
}

// Scales every headline number of a run's points (the ones pages and
// aggregates read), as a second upload of the same or another GPU would differ.
void scale(json &run, double f) {
    for (json &r : run["results"])
        for (json &s : r["series"])
            for (json &p : s["points"]) {
                for (const char *k : {"bandwidth_gbs", "bandwidth_gbs_min", "bandwidth_gbs_max"})
                    if (p.contains(k)) p[k] = p[k].get<double>() * f;
                for (const char *k : {"median", "min", "max", "mean"}) p["time_ms"][k] = p["time_ms"][k].get<double>() / f;
                if (p.contains("values"))
                    for (auto it = p["values"].begin(); it != p["values"].end(); ++it)
                        if (it.value().is_number()) it.value() = it.value().get<double>() / f;
            }
}

// The points a server stores for a run: one row per point of every series.
std::vector<PointRow> rows_of(const std::string &id, const json &run) {
    std::vector<PointRow> rows;
    for (const json &r : run["results"])
        for (const json &s : r["series"]) {
            const std::string field = s["y"].value("field", "bandwidth_gbs");
            for (const json &p : s["points"])
                rows.push_back({id, r["experiment"]["name"], s["name"], field, p["x"].get<double>(), gmreport::point_field(p, field)});
        }
    return rows;
}

// The counter rows a server stores beside them (upload/validate.cpp,
// storage/counter_rows.hpp): per counted point of a series with an agreement,
// the counted figure, the model's value and the tolerance.
std::vector<PointRow> counter_rows_of(const std::string &id, const json &run) {
    std::vector<PointRow> rows;
    for (const json &r : run["results"])
        for (const json &s : r["series"]) {
            if (!s.contains("agreement")) continue;
            for (auto a = s["agreement"].begin(); a != s["agreement"].end(); ++a)
                for (const json &p : s["points"]) {
                    const std::string prediction = a.value()["prediction"];
                    if (!p.contains("counters") || !p["counters"].contains(a.key()) || !p["predicted"].contains(prediction)) continue;
                    const double x = p["x"];
                    for (const auto &[kind, value] : {std::pair{CounterRow::Counted, p["counters"][a.key()].get<double>()},
                                                      std::pair{CounterRow::Model, p["predicted"][prediction].get<double>()},
                                                      std::pair{CounterRow::Tolerance, a.value()["tolerance"].get<double>()}})
                        rows.push_back({id, r["experiment"]["name"], s["name"], counter_field(kind, a.key()), x, value});
                }
        }
    return rows;
}

// Experiments of the run whose series compare counters with their model and
// are drawn against x: each adds a counters chart to a GPU page.
int counter_charts(const json &run) {
    int n = 0;
    for (const json &r : run["results"]) {
        bool counted = false;
        for (const json &s : r["series"])
            if (s.contains("agreement"))
                for (const json &p : s["points"]) counted = counted || p.contains("counters");
        n += counted && gmreport::chart_spec(r["experiment"]["name"]).kind == "line";
    }
    return n;
}

std::vector<PointRow> with_counters(const std::string &id, const json &run) {
    std::vector<PointRow> rows = rows_of(id, run), counters = counter_rows_of(id, run);
    rows.insert(rows.end(), counters.begin(), counters.end());
    return rows;
}

GpuIdentity identity(const json &run, const std::string &key) {
    const json &d = run["device"];
    GpuIdentity g;
    g.key = key;
    g.name = d["name"];
    g.compute_capability = d["compute_capability"];
    g.memory_bytes = d["global_memory_bytes"];
    g.bus_width_bits = d["memory_bus_width_bits"];
    g.driver_version = d["driver_version"];
    g.runtime_version = d["runtime_version"];
    return g;
}

StoredRun stored(const std::string &id, const std::string &created, const GpuIdentity &gpu, const json &run) {
    StoredRun s;
    s.id = id;
    s.created_at = created;
    s.gpu = gpu;
    s.document = run.dump();
    return s;
}

// Per experiment, the aggregate of every upload's rows, in the runs' order.
std::vector<std::pair<std::string, json>> aggregates(const json &run, const std::vector<std::vector<PointRow>> &uploads) {
    std::vector<std::pair<std::string, json>> out;
    for (const json &r : run["results"]) {
        const std::string name = r["experiment"]["name"];
        std::vector<PointRow> rows;
        for (const auto &u : uploads)
            for (const PointRow &p : u)
                if (p.experiment == name) rows.push_back(p);
        out.emplace_back(name, aggregate_points(rows));
    }
    return out;
}

const json *agg_point(const std::vector<std::pair<std::string, json>> &aggs, const std::string &exp, const std::string &series) {
    for (const auto &[name, agg] : aggs)
        if (name == exp)
            for (const json &s : agg["series"])
                if (s["name"] == series) return &s["points"][0];
    return nullptr;
}

json manifest = json::array();
std::string out_dir;

// Writes a page, records it for the browser check, and checks what every page must be.
void page(const std::string &name, const std::string &html, int charts, bool shows_injection) {
    const std::string file = out_dir + "/" + name + ".html";
    std::ofstream(file) << html;
    manifest.push_back({{"page", name}, {"file", file}, {"charts", charts}});
    check(name + ": a whole page", html.rfind("<!doctype html>", 0) == 0 && html.size() > 15 &&
                                       html.compare(html.size() - 8, 8, "</html>\n") == 0);
    const Split parts = split_scripts(html);
    const std::size_t expected_scripts = charts > 0 ? 3 : 0;
    check(name + ": only the page's own scripts (" + std::to_string(expected_scripts) + ")",
          parts.scripts.size() == expected_scripts && parts.markup.find("<script") == std::string::npos,
          std::to_string(parts.scripts.size()) + " script elements");
    check(name + ": no raw injection outside scripts",
          parts.markup.find(kScript) == std::string::npos && parts.markup.find(kAttr) == std::string::npos &&
              parts.markup.find("<!--<script") == std::string::npos);
    if (shows_injection)
        check(name + ": the injected text is shown escaped",
              parts.markup.find(kScriptEscaped) != std::string::npos && parts.markup.find(kAttrEscaped) != std::string::npos);
    if (charts > 0) {
        const std::string &data = parts.scripts[0];
        const json specs = json::parse(data, nullptr, false);
        check(name + ": chart data parses, " + std::to_string(charts) + " charts",
              !specs.is_discarded() && specs.is_array() && specs.size() == static_cast<std::size_t>(charts),
              specs.is_array() ? std::to_string(specs.size()) : "not JSON");
        bool canvases = true;
        if (specs.is_array())
            for (const json &c : specs) canvases &= html.find("<canvas id=\"" + c["canvas"].get<std::string>() + "\"") != std::string::npos;
        check(name + ": a canvas for every chart", canvases);
        check(name + ": chart data cannot end its element", data.find("</") == std::string::npos && data.find("<!--") == std::string::npos);
    }
}

int total_charts(const json &run) {
    int n = 0;
    for (const json &r : run["results"]) n += gmreport::chart_data(r, "c").is_null() ? 0 : 1;
    return n;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::cerr << "usage: render_pages RUN.json OUT_DIR\n";
        return 2;
    }
    out_dir = argv[2];
    std::filesystem::create_directories(out_dir);
    json h200;
    {
        std::ifstream in(argv[1]);
        if (!in) {
            std::cerr << argv[1] << " cannot be read\n";
            return 2;
        }
        h200 = json::parse(in);
    }

    // aggregate_points on numbers worked out by hand: type 7 quartiles.
    {
        std::vector<PointRow> rows;
        const double vals[] = {4, 1, 3, 2};
        for (int i = 0; i < 4; ++i) rows.push_back({"run" + std::to_string(i), "e", "s", "bandwidth_gbs", 8, vals[i]});
        rows.push_back({"run0", "e", "s", "bandwidth_gbs", 2, 10});
        rows.push_back({"run0", "e", "first seen later", "median_ms", 1, NAN});
        rows.push_back({"run1", "e", "first seen later", "median_ms", 1, 5});
        rows.insert(rows.begin(), {"run9", "e", "t", "median_ms", 3, 7});
        const json a = aggregate_points(rows);
        const json &s = a["series"][1];
        check("aggregate: series in order of first appearance", a["series"].size() == 3 && a["series"][0]["name"] == "t" &&
                                                                     s["name"] == "s" && a["series"][2]["name"] == "first seen later");
        check("aggregate: x ascending", s["points"].size() == 2 && s["points"][0]["x"] == 2.0 && s["points"][1]["x"] == 8.0);
        const json &p = s["points"][1];
        check("aggregate: n, median, q1, q3 of 1..4 are 4, 2.5, 1.75, 3.25",
              p["n"] == 4 && p["median"] == 2.5 && p["q1"] == 1.75 && p["q3"] == 3.25, p.dump());
        check("aggregate: one value is its own median and quartiles", s["points"][0]["median"] == 10.0 && s["points"][0]["q1"] == 10.0 &&
                                                                          s["points"][0]["q3"] == 10.0 && s["points"][0]["n"] == 1);
        check("aggregate: non-finite values are left out", a["series"][2]["points"][0]["n"] == 1 && a["series"][2]["points"][0]["median"] == 5.0);
        check("aggregate: field kept, uploads counted", s["field"] == "bandwidth_gbs" && a["uploads"] == 5, a["uploads"].dump());
        check("aggregate: no rows, no series", aggregate_points({})["series"].empty());
    }

    // Three uploads of the H200 (as measured, 3% slower, 2% faster) and two of a
    // second model, half as fast, whose name, notes and a series name carry injections.
    json h200_slow = h200, h200_fast = h200, evil = h200, evil2 = h200;
    scale(h200_slow, 0.97);
    scale(h200_fast, 1.02);
    h200_slow["created_at"] = "2026-11-20T10:00:00Z";
    h200_fast["created_at"] = "2026-11-21T10:00:00Z";
    for (json *e : {&evil, &evil2}) {
        scale(*e, 0.5);
        (*e)["device"]["name"] = "Evil " + kInjection + " GPU";
        (*e)["device"]["driver_version"] = "550 " + kInjection;
        (*e)["results"][0]["notes"].push_back("note " + kInjection);
        (*e)["results"][0]["series"][0]["name"] = "copy " + kInjection;
    }
    scale(evil2, 1.1);
    const GpuIdentity g_h200 = identity(h200, "nvidia h200|9.0|140gib|6016");
    // A key as a server might normalise this name: the injection in it too.
    const GpuIdentity g_evil = identity(evil, "evil " + kInjection + " gpu|9.0|140gib|6016");
    const std::string id1 = "0123456789abcdef0123456789abcdef", id2 = "fedcba9876543210fedcba9876543210",
                      id3 = "00112233445566778899aabbccddeeff", id4 = "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
                      id5 = "5f5e5d5c5b5a59585756555453525150";
    const StoredRun r1 = stored(id1, "2026-11-19T10:00:00Z", g_h200, h200), r2 = stored(id2, "2026-11-20T10:00:00Z", g_h200, h200_slow),
                    r3 = stored(id3, "2026-11-21T10:00:00Z", g_h200, h200_fast), r4 = stored(id4, "2026-11-21T11:00:00Z", g_evil, evil),
                    r5 = stored(id5, "2026-11-21T12:00:00Z", g_evil, evil2);
    const auto agg_h200 = aggregates(h200, {rows_of(id1, h200), rows_of(id2, h200_slow), rows_of(id3, h200_fast)});
    const auto agg_evil = aggregates(evil, {rows_of(id4, evil), rows_of(id5, evil2)});

    // The aggregate of three uploads scaled 1, 0.97, 1.02: the median is the measured value.
    {
        const json *p = agg_point(agg_h200, "stream", "copy");
        const double measured = h200["results"][0]["series"][0]["points"][0]["bandwidth_gbs"];
        check("H200 stream copy: n 3, median the measured value, q1 < median < q3",
              p && (*p)["n"] == 3 && std::abs((*p)["median"].get<double>() - measured) < 1e-9 * measured &&
                  (*p)["q1"].get<double>() < measured && (*p)["q3"].get<double>() > measured,
              p ? p->dump() : "missing");
    }

    const int experiments = static_cast<int>(h200["results"].size());
    // Results that measured something: a not-applicable one (peer on one GPU) has no series, so no chart.
    int measured = 0;
    for (const json &r : h200["results"]) measured += r["series"].empty() ? 0 : 1;
    // home
    {
        const std::string html = page_home({{g_h200, 3}, {g_evil, 2}});
        page("home", html, 0, true);
        check("home: links to each GPU page, the key percent-encoded",
              html.find("href=\"/gpu/nvidia%20h200%7C9.0%7C140gib%7C6016\"") != std::string::npos &&
                  html.find("href=\"/gpu/evil%20%3Cscript%3Ealert%281%29%3C%2Fscript%3E%20%22onmouseover%3Dalert%282%29%20gpu%7C9.0%7C140gib%7C6016\"") !=
                      std::string::npos);
        check("home: upload counts", html.find("<td>3</td>") != std::string::npos && html.find("<td>2</td>") != std::string::npos &&
                                         html.find("5 uploads of 2 GPU models") != std::string::npos);
        check("home: a shareable GPU compare link", html.find("href=\"/compare?gpu_a=nvidia%20h200%7C9.0%7C140gib%7C6016&amp;gpu_b=evil%20") != std::string::npos);
        page("home-empty", page_home({}), 0, false);
    }
    // GPU pages
    {
        const std::string html = page_gpu(g_h200, agg_h200, {r3, r2, r1});
        page("gpu-h200", html, measured, false);
        check("gpu-h200: a section per experiment", count(html, "<section id=") == static_cast<std::size_t>(experiments));
        check("gpu-h200: links to its recent uploads", html.find("href=\"/result/" + id1 + "\"") != std::string::npos &&
                                                           html.find("href=\"/result/" + id3 + "\"") != std::string::npos);
        check("gpu-h200: compare links between consecutive uploads",
              html.find("href=\"/compare?a=" + id2 + "&amp;b=" + id3 + "\"") != std::string::npos);
        check("gpu-h200: n per point in the tables", html.find("<th>n</th>") != std::string::npos &&
                                                         html.find("</td><td>3</td><td>") != std::string::npos);
        check("gpu-h200: 3 uploads per measured experiment", count(html, "<p>3 uploads.</p>") == static_cast<std::size_t>(measured));
        const Split parts = split_scripts(html);
        const json specs = json::parse(parts.scripts.at(0));
        bool bands = true;
        for (const json &c : specs)
            if (c["kind"] == "line") {
                int low = 0, high = 0;
                for (const json &d : c["datasets"]) {
                    low += d.value("band", "") == "low";
                    high += d.value("band", "") == "high";
                }
                bands &= low > 0 && low == high && c["datasets"].size() == static_cast<std::size_t>(3 * low);
            }
        check("gpu-h200: every line chart has a median and a q1..q3 band per series", bands);
        const std::string evil_html = page_gpu(g_evil, agg_evil, {r5, r4});
        page("gpu-evil", evil_html, measured, true);
        check("gpu-evil: the injected series name is in the chart data, escaped for the script",
              split_scripts(evil_html).scripts.at(0).find("copy \\u003cscript>alert(1)\\u003c/script> \\\"onmouseover") != std::string::npos);
        // A series name that would switch an HTML parser's script state.
        std::vector<PointRow> tricky = {{"x", "stream", "<!--<script>", "bandwidth_gbs", 1, 2}};
        page("gpu-tricky", page_gpu(g_evil, {{"stream", aggregate_points(tricky)}}, {}), 1, true);
        check("gpu-h200: no counters section without counter rows", html.find("Model and hardware counters") == std::string::npos);

        // The same uploads with their counter rows: a counters section per
        // experiment that has them, the experiment charts as they were.
        const auto agg_counted = aggregates(h200, {with_counters(id1, h200), with_counters(id2, h200_slow), with_counters(id3, h200_fast)});
        const std::string counted = page_gpu(g_h200, agg_counted, {r3, r2, r1});
        page("gpu-h200-counters", counted, measured + counter_charts(h200), false);
        check("gpu-h200-counters: a counters section per experiment with counter rows",
              count(counted, "Model and hardware counters</h3>") == 4 && counted.find("id=\"stride_copy-counters\"") != std::string::npos,
              std::to_string(count(counted, "Model and hardware counters</h3>")));
        // What the committed run counted of stride_copy's first series (the
        // budget of --counters auto picks the points): its table must list
        // each of them with the model's value, counted by all 3 uploads.
        std::vector<std::pair<long long, long long>> guide_counted;  // stride, predicted sectors
        for (const json &r : h200["results"])
            if (r["experiment"]["name"] == "stride_copy")
                for (const json &p : r["series"][0]["points"])
                    if (p.contains("counters") && p["counters"].contains("sectors_per_request_ld"))
                        guide_counted.push_back({p["x"].get<long long>(), p["predicted"]["sectors_per_request"].get<long long>()});
        bool rows = !guide_counted.empty();
        for (const auto &[x, model] : guide_counted) {
            const std::string m = "<td>" + std::to_string(model) + "</td>";
            rows &= counted.find("<tr><td>" + std::to_string(x) + "</td>" + m + m + m + m + "<td>3</td><td>yes</td></tr>") != std::string::npos;
        }
        const std::string k = std::to_string(guide_counted.size());
        check("gpu-h200-counters: a table per series and counted figure, n 3",
              counted.find("<strong>guide, 4-byte words</strong>: <code>sectors_per_request_ld</code> against the model (exact): "
                           "median equal to the model at " + k + " of " + k + " points") != std::string::npos && rows,
              k + " counted points");
        json plain_charts = json::parse(split_scripts(html).scripts.at(0)), kept = json::array();
        const json counted_charts = json::parse(split_scripts(counted).scripts.at(0));
        for (json c : counted_charts)
            if (c["y_title"] != "counted figure") kept.push_back(c);
        for (json *list : {&plain_charts, &kept})
            for (json &c : *list) c.erase("canvas");
        check("gpu-h200-counters: the experiment charts are unchanged", kept == plain_charts);

        // A series and a counted figure whose names carry injections.
        std::vector<PointRow> evil_rows = {{"x", "stride_copy", "copy " + kInjection, "bandwidth_gbs", 1, 2},
                                           {"x", "stride_copy", "copy " + kInjection, counter_field(CounterRow::Counted, kInjection), 1, 4},
                                           {"x", "stride_copy", "copy " + kInjection, counter_field(CounterRow::Model, kInjection), 1, 4}};
        const std::string evil_counters = page_gpu(g_evil, {{"stride_copy", aggregate_points(evil_rows)}}, {});
        page("gpu-evil-counters", evil_counters, 2, true);
        check("gpu-evil-counters: the injected counter name is shown escaped",
              evil_counters.find("<code>" + gmreport::escape_html(kInjection) + "</code> against the model") != std::string::npos);
        page("gpu-empty", page_gpu(g_h200, {}, {}), 0, false);
    }
    // result pages: the report of the document, a header before it
    {
        const std::string html = page_result(r1);
        page("result-h200", html, total_charts(h200), false);
        const std::string report = gmreport::html_report(h200);
        const auto nav = html.find("<nav class=\"crumbs\">"), end = html.find("</form>\n", nav);
        const bool same = nav != std::string::npos && end != std::string::npos &&
                          html.substr(0, nav) + html.substr(end + 8) == report;
        check("result-h200: the report of its document, with a header", same);
        check("result-h200: the header links back to its GPU and home",
              html.find("href=\"/gpu/nvidia%20h200%7C9.0%7C140gib%7C6016\"") != std::string::npos && html.find("href=\"/\"") != std::string::npos);
        const std::string evil_html = page_result(r4);
        page("result-evil", evil_html, total_charts(evil), true);
        check("result-evil: the note is shown escaped", evil_html.find("<li>note " + gmreport::escape_html(kInjection) + "</li>") != std::string::npos);
    }
    // compare two uploads, and two GPU models
    {
        const std::string html = page_compare_runs(r1, r2);
        const json a = json::parse(r1.document), b = json::parse(r2.document);
        const json cmp = gmreport::compare_runs(a, b);
        std::size_t groups = 0;
        {
            std::vector<std::string> seen;
            for (const json &row : cmp["rows"]) {
                // Each hardware counter of a series is a chart of its own.
                const std::string k = row["experiment"].get<std::string>() + "/" + row["series"].get<std::string>() +
                                      (row.value("counter", false) ? "/" + row["field"].get<std::string>() : "");
                if (std::find(seen.begin(), seen.end(), k) == seen.end()) seen.push_back(k);
            }
            groups = seen.size();
        }
        page("compare-runs", html, static_cast<int>(groups), false);
        check("compare-runs: links to both uploads and a shareable URL",
              html.find("href=\"/result/" + id1 + "\"") != std::string::npos && html.find("href=\"/result/" + id2 + "\"") != std::string::npos &&
                  html.find("href=\"/compare?a=" + id1 + "&amp;b=" + id2 + "\"") != std::string::npos);
        check("compare-runs: bandwidths 3% lower show B / A 0.970", html.find("<td>0.970</td>") != std::string::npos);
        const std::string cross = page_compare_runs(r1, r4);
        page("compare-runs-evil", cross, static_cast<int>(count(cross, "<canvas id=")), true);

        const json ja = json(agg_h200), jb = json(agg_evil);
        const std::string g = page_compare_gpus(g_h200, ja, g_evil, jb);
        page("compare-gpus", g, measured, true);
        check("compare-gpus: shareable URL both ways", g.find("href=\"/compare?gpu_a=nvidia%20h200%7C9.0%7C140gib%7C6016&amp;gpu_b=evil%20") != std::string::npos &&
                                                           g.find("href=\"/compare?gpu_a=evil%20") != std::string::npos);
        // B is half as fast and then 1.1 times that: median of 0.5 and 0.55 over the H200's median.
        check("compare-gpus: B / A of the bandwidths is 0.525", g.find("<td>0.525</td>") != std::string::npos);
        check("compare-gpus: medians with n", g.find(" (3)</td><td>") != std::string::npos && g.find(" (2)</td><td>") != std::string::npos);
        json as_object = json::object();
        for (const auto &[name, agg] : agg_h200) as_object[name] = agg;
        check("compare-gpus: takes {experiment: aggregate} too",
              page_compare_gpus(g_h200, as_object, g_h200, as_object).find("<td>1.000</td>") != std::string::npos);
    }
    // error page
    {
        const std::string html = page_error(404, "no result " + kInjection);
        page("error-404", html, 0, true);
        check("error-404: status in the heading", html.find("<h1>404 Not found</h1>") != std::string::npos);
    }

    std::ofstream(out_dir + "/manifest.json") << manifest.dump(1) << "\n";
    std::cout << passed << " passed, " << failed << " failed\n";
    return failed ? 1 : 0;
}
