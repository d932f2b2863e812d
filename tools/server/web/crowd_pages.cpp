// Web pages of the view across models: one page per experiment with every
// model side by side (/experiment/NAME), up to four models compared
// (/compare?a=KEY&b=KEY[&c=KEY&d=KEY]), and an upload's standing among its
// model's uploads on its page. All user-supplied text passes through
// escape_html; URL parts are percent-encoded first.
#include "web/crowd_routes.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "chart_specs.hpp"
#include "html_report.hpp"
#include "table.hpp"

#include "http/http_message.hpp"
#include "web/expensive_gate.hpp"
#include "web/number_text.hpp"
#include "web/page_bounds.hpp"
#include "web/pages.hpp"
#include "web/url.hpp"

namespace gmserver {

using nlohmann::json;
using gmreport::escape_html;

namespace {

constexpr std::size_t kMaxCompared = 4;
const char *const kCompareParams[] = {"a", "b", "c", "d"};

// Every number a page prints: a few significant digits whatever its size.
std::string num(double v) { return number_text(v); }
// A ratio of two medians, where both are finite and the divisor is not 0.
std::string ratio(double a, double b) { return std::isfinite(a) && std::isfinite(b) && b != 0 ? ratio_text(a / b) : number_text(NAN); }
std::string href(const std::string &path) { return escape_html(path); }
std::string experiment_href(const std::string &name, const std::string &view = "") {
    return href("/experiment/" + url_encode(name) + (view.empty() || view == "absolute" ? "" : "?view=" + url_encode(view)));
}
std::string gpu_href(const std::string &key) { return href("/gpu/" + url_encode(key)); }
std::string export_href(const std::string &experiment, const std::string &format) {
    return href("/api/v1/export?experiment=" + url_encode(experiment) + "&format=" + format);
}
std::string compare_href(const std::vector<std::string> &keys) {
    std::string q;
    for (std::size_t i = 0; i < keys.size() && i < kMaxCompared; ++i) q += std::string(i ? "&" : "?") + kCompareParams[i] + "=" + url_encode(keys[i]);
    return href("/compare" + q);
}

void send_page(HttpResponse &res, int status, const std::string &html) {
    res.status = status;
    res.set_content(html, "text/html; charset=utf-8");
}

std::string crumbs(const std::string &here) {
    return "<nav class=\"crumbs\"><a href=\"/\">gmlab results</a> &rsaquo; <a href=\"/experiments\">experiments</a>" +
           (here.empty() ? std::string() : " &rsaquo; " + escape_html(here)) + "</nav>\n";
}

// Puts html just before </body> (pages made elsewhere gain a section).
std::string before_body_end(const std::string &page, const std::string &html) {
    const auto at = page.rfind("</body>");
    return at == std::string::npos ? page + html : page.substr(0, at) + html + page.substr(at);
}
// And just after the first </nav> (under a page's crumbs).
std::string after_crumbs(const std::string &page, const std::string &html) {
    const auto at = page.find("</nav>");
    return at == std::string::npos ? page : page.substr(0, at + 6) + "\n" + html + page.substr(at + 6);
}


// x as drawn: the report draws byte-sized x in MiB where its spec says so.
double drawn_x(const gmreport::Chart &spec, double x) {
    const std::string mib = "(MiB)";
    const bool in_mib = spec.x_title.size() >= mib.size() && spec.x_title.compare(spec.x_title.size() - mib.size(), mib.size(), mib) == 0;
    return in_mib ? x / 1048576.0 : x;
}

const std::vector<std::string> kViews = {"absolute", "theoretical", "copy"};
std::string view_title(const std::string &view) {
    return view == "theoretical" ? "normalised by each model's theoretical bandwidth"
           : view == "copy"      ? "normalised by each model's own stream copy"
                                 : "absolute figures";
}

// A model's divisor for GB/s in a normalised view: its median theoretical
// bandwidth or stream copy, from the stream experiment's figures.
std::map<std::string, double> divisors(Crowd &crowd, const std::string &view) {
    std::map<std::string, double> out;
    if (view == "absolute") return out;
    const json stream = crowd.experiment_table("stream");
    for (const json &m : stream["models"]) {
        const json &f = m["figures"];
        if (!f.contains("copy_gbs")) continue;
        const double copy = f["copy_gbs"]["median"].get<double>();
        if (view == "copy") out[m["key"]] = copy;
        else if (f.contains("copy_gbs/theoretical") && f["copy_gbs/theoretical"]["median"].get<double>() > 0)
            out[m["key"]] = copy / f["copy_gbs/theoretical"]["median"].get<double>();
    }
    return out;
}

struct ModelRef {
    std::string key, name;
};

// One chart with one curve (line experiments: the chosen series) or one bar
// group (bar experiments: every single-point series) per model, from the
// models' aggregates. y divided by the model's divisor where one is given.
// Aggregates read ahead: model key -> experiment -> aggregate.
using Prefetched = std::map<std::string, std::map<std::string, json>>;

json models_chart(Crowd &crowd, const std::string &experiment, const std::vector<ModelRef> &models, const std::string &series_wanted,
                  const std::map<std::string, double> &divide, const std::string &canvas, std::vector<std::string> *series_names,
                  const Prefetched *prefetched = nullptr) {
    const gmreport::Chart spec = gmreport::chart_spec(experiment);
    json datasets = json::array(), labels = json::array();
    std::string field;
    std::vector<std::pair<std::size_t, json>> aggs;
    for (std::size_t i = 0; i < models.size(); ++i) {
        json agg;
        if (prefetched) {
            const auto m = prefetched->find(models[i].key);
            if (m != prefetched->end() && m->second.count(experiment)) agg = m->second.at(experiment);
        } else {
            agg = crowd.aggregate()(models[i].key, experiment);
        }
        if (agg.is_null() || !agg.contains("series")) continue;
        for (const json &s : agg["series"]) {
            const std::string n = s.value("name", "");
            if (series_names && std::find(series_names->begin(), series_names->end(), n) == series_names->end()) series_names->push_back(n);
        }
        aggs.emplace_back(i, std::move(agg));
    }
    if (aggs.empty()) return nullptr;
    if (spec.kind == "bar") {
        // Labels: the single-point series of the first model with the first one's field.
        for (const json &s : aggs.front().second["series"]) {
            if (s["points"].size() != 1) continue;
            if (field.empty()) field = s.value("field", "");
            if (s.value("field", "") == field) labels.push_back(s["name"]);
        }
    } else {
        const json &first = aggs.front().second["series"];
        if (first.empty()) return nullptr;
        field = first[0].value("field", "");
    }
    // The series drawn: the one asked for, else the first of the most uploaded model.
    std::string wanted = series_wanted;
    if (wanted.empty() && !aggs.front().second["series"].empty()) wanted = aggs.front().second["series"][0].value("name", "");
    const bool normalise = field == "bandwidth_gbs" && !divide.empty();
    for (const auto &[i, agg] : aggs) {
        const auto d = divide.find(models[i].key);
        const double div = normalise && d != divide.end() && d->second > 0 ? d->second : (normalise ? NAN : 1.0);
        if (!std::isfinite(div)) continue;  // no stream figures for this model: left out of a normalised chart
        json data = json::array();
        if (spec.kind == "bar") {
            for (const json &l : labels) {
                double v = NAN;
                for (const json &s : agg["series"])
                    if (s["name"] == l && s["points"].size() == 1) v = s["points"][0]["median"].get<double>() / div;
                data.push_back(chart_number(v));
            }
        } else {
            for (const json &s : agg["series"]) {
                if (s.value("name", "") != wanted) continue;
                for (const json &p : s["points"])
                    data.push_back({{"x", chart_number(drawn_x(spec, p["x"].get<double>()))}, {"y", chart_number(p["median"].get<double>() / div)}});
            }
            if (data.empty()) continue;
        }
        datasets.push_back({{"label", models[i].name}, {"data", data}, {"color", series_color(i)}});
    }
    if (datasets.empty()) return nullptr;
    std::string y_title = field == "bandwidth_gbs" ? "effective bandwidth (GB/s)" : field;
    if (normalise) y_title = "effective bandwidth / the model's reference bandwidth";
    json chart = {{"canvas", canvas}, {"kind", spec.kind}, {"x_log", spec.x_log}, {"y_log", spec.y_log && !normalise}, {"y_title", y_title}, {"datasets", datasets}};
    if (spec.kind == "bar") chart["labels"] = labels;
    else chart["x_title"] = spec.x_title.empty() ? "x" : spec.x_title;
    return chart;
}

// Figures of a table that a view shows: ratios always; absolute figures in
// the absolute view, their normalised forms in the others.
std::vector<json> view_figures(const json &table, const std::string &view) {
    std::vector<json> out;
    for (const json &f : table["figures"]) {
        const std::string basis = f["basis"];
        const bool absolute_gbs = f["unit"] == "GB/s";
        if (view == "absolute" ? basis.empty() : (basis == view || (basis.empty() && !absolute_gbs))) out.push_back(f);
    }
    return out;
}

std::string figure_cell(const json &model, const std::string &id) {
    if (!model["figures"].contains(id)) return "<td data-v=\"\">-</td>";
    const json &s = model["figures"][id];
    std::ostringstream h;
    h << "<td data-v=\"" << data_value(s["median"].get<double>()) << "\" title=\"n " << s["n"].get<std::size_t>() << ", quartiles " << num(s["q1"].get<double>())
      << " to " << num(s["q3"].get<double>()) << "\">" << num(s["median"].get<double>()) << " <small>(" << num(s["q1"].get<double>()) << "&ndash;"
      << num(s["q3"].get<double>()) << ")</small></td>";
    return h.str();
}

std::string experiment_list_html() {
    std::ostringstream h;
    h << "<ul class=\"experiments\">\n";
    for (const std::string &n : Crowd::experiment_names())
        h << "<li><a href=\"" << experiment_href(n) << "\">" << escape_html(n) << "</a> &ndash; " << escape_html(gmreport::chart_spec(n).explanation.substr(0, 140))
          << (gmreport::chart_spec(n).explanation.size() > 140 ? "&hellip;" : "") << "</li>\n";
    h << "</ul>\n";
    return h.str();
}

// The table's rows in the order asked for: by a figure's median, the
// uploads or the name; models without the figure last.
void sort_models(json &models, const std::string &by, bool descending) {
    std::vector<json> rows(models.begin(), models.end());
    auto key = [&](const json &m) -> double {
        if (by == "uploads") return m["uploads"].get<double>();
        if (m["figures"].contains(by)) return m["figures"][by]["median"].get<double>();
        return NAN;
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const json &a, const json &b) {
        if (by == "name") return descending ? a["name"] > b["name"] : a["name"] < b["name"];
        const double x = key(a), y = key(b);
        if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
        return descending ? x > y : x < y;
    });
    models = json(rows);
}

std::string page_experiment(Crowd &crowd, const std::string &name, const std::string &view, const std::string &series,
                            const std::string &sort, bool descending, std::size_t max_models) {
    json table = crowd.experiment_table(name);
    // The most uploaded models only, whatever the order asked for.
    std::size_t more = 0;
    if (table["models"].size() > max_models) {
        sort_models(table["models"], "uploads", true);
        more = table["models"].size() - max_models;
        table["models"].erase(table["models"].begin() + static_cast<std::ptrdiff_t>(max_models), table["models"].end());
    }
    if (!sort.empty()) sort_models(table["models"], sort, descending);
    // A heading is a link that sorts by its column (again: the other way round).
    auto heading = [&](const std::string &by, const std::string &label_html, const std::string &title) {
        const bool current = by == sort;
        const bool next_descending = current ? !descending : by != "name";
        const std::string link = "/experiment/" + url_encode(name) + "?view=" + url_encode(view) + "&sort=" + url_encode(by) +
                                 "&order=" + (next_descending ? "desc" : "asc") + (series.empty() ? "" : "&series=" + url_encode(series));
        return "<th title=\"" + escape_html(title) + "\"><a href=\"" + href(link) + "\">" + label_html + "</a>" +
               (current ? (descending ? " &darr;" : " &uarr;") : "") + "</th>";
    };
    const gmreport::Chart spec = gmreport::chart_spec(name);
    std::ostringstream h;
    h << crumbs(name) << "<h1>" << escape_html(name) << " across GPU models</h1>\n<p class=\"what\"><strong>What this shows.</strong> "
      << escape_html(spec.explanation) << "</p>\n<p>View: ";
    for (std::size_t i = 0; i < kViews.size(); ++i)
        h << (i ? " | " : "") << (kViews[i] == view ? "<strong>" + escape_html(view_title(kViews[i])) + "</strong>"
                                                     : "<a href=\"" + experiment_href(name, kViews[i]) + "\">" + escape_html(view_title(kViews[i])) + "</a>");
    h << ". Export every accepted point: <a href=\"" << export_href(name, "csv") << "\">CSV</a>, <a href=\"" << export_href(name, "jsonl")
      << "\">JSON lines</a>; <a href=\"" << href("/api/v1/experiments/" + url_encode(name)) << "\">this table as JSON</a>.</p>\n";
    h << more_models_note(more, max_models);
    const std::vector<json> figures = view_figures(table, view);
    std::vector<ModelRef> models;
    for (const json &m : table["models"]) models.push_back({m["key"], m["name"]});
    if (models.empty()) {
        h << "<p>No accepted upload of any model has this experiment's headline figures yet.</p>\n";
    } else if (!figures.empty()) {
        h << "<h2>Headline figures</h2>\n<p>Per model: the median across its accepted uploads, the first to third quartile in brackets "
             "(hover for n). Ratios compare across models as they are. A heading sorts by its column.</p>\n<table class=\"figures\">\n<tr>"
          << heading("name", "GPU model", "sort by name") << heading("uploads", "uploads", "sort by the number of accepted uploads");
        for (const json &f : figures)
            h << heading(f["id"], escape_html(f["label"].get<std::string>()) + " <small>(" + escape_html(f["unit"].get<std::string>()) + ")</small>",
                         f["id"].get<std::string>());
        h << "</tr>\n";
        for (const json &m : table["models"]) {
            h << "<tr><td><a href=\"" << gpu_href(m["key"]) << "\">" << escape_html(m["name"].get<std::string>()) << "</a></td><td data-v=\"" << m["uploads"].get<std::size_t>()
              << "\">" << m["uploads"].get<std::size_t>() << "</td>";
            for (const json &f : figures) h << figure_cell(m, f["id"]);
            h << "</tr>\n";
        }
        h << "</table>\n";
    }
    json charts = json::array();
    if (!models.empty()) {
        std::vector<std::string> series_names;
        const json chart = models_chart(crowd, name, models, series, divisors(crowd, view), "chart-0", &series_names);
        if (!chart.is_null()) {
            h << "<h2>Every model</h2>\n";
            if (spec.kind != "bar" && series_names.size() > 1) {
                const std::string shown = series.empty() ? series_names.front() : series;
                h << "<p>Series: ";
                for (std::size_t i = 0; i < series_names.size(); ++i) {
                    const std::string link = "/experiment/" + url_encode(name) + "?view=" + url_encode(view) + "&series=" + url_encode(series_names[i]);
                    h << (i ? " | " : "") << (series_names[i] == shown ? "<strong>" + escape_html(series_names[i]) + "</strong>"
                                                                       : "<a href=\"" + href(link) + "\">" + escape_html(series_names[i]) + "</a>");
                }
                h << "</p>\n";
            }
            h << "<p>The median across each model's uploads" << (view == "absolute" ? "" : ", " + escape_html(view_title(view)) + " where the figure is a bandwidth")
              << ".</p>\n<canvas id=\"chart-0\" width=\"960\" height=\"420\"></canvas>\n";
            charts.push_back(chart);
        }
        std::vector<std::string> keys;
        for (std::size_t i = 0; i < models.size() && i < kMaxCompared; ++i) keys.push_back(models[i].key);
        if (keys.size() >= 2) h << "<p><a href=\"" << compare_href(keys) << "\">Compare the " << keys.size() << " most uploaded models on every experiment</a>.</p>\n";
    }
    return gmreport::html_page("gmlab: " + name + " across GPU models", h.str(), charts);
}

std::string page_compare_models(Crowd &crowd, const std::vector<GpuIdentity> &models) {
    std::ostringstream h;
    std::vector<std::string> keys;
    std::vector<ModelRef> refs;
    for (const GpuIdentity &g : models) {
        keys.push_back(g.key);
        refs.push_back({g.key, g.name.empty() ? g.key : g.name});
    }
    h << crumbs("compare") << "<h1>";
    for (std::size_t i = 0; i < refs.size(); ++i) h << (i ? " against " : "") << escape_html(refs[i].name);
    h << "</h1>\n<p>";
    for (std::size_t i = 0; i < refs.size(); ++i)
        h << "<strong>" << char('A' + i) << "</strong>: <a href=\"" << gpu_href(refs[i].key) << "\">" << escape_html(refs[i].name) << "</a> <code>"
          << escape_html(refs[i].key) << "</code><br>";
    h << "<a href=\"" << compare_href(keys) << "\">Link to this comparison</a>. Per experiment: the median of each headline figure across each "
      << "model's accepted uploads (n in brackets) and its ratio to A, then one curve or bar group per model.</p>\n";
    json charts = json::array();
    Prefetched prefetched;
    for (const std::string &k : keys) {
        const std::vector<json> aggs = crowd.model_aggregates(k, compared_experiments());
        for (std::size_t i = 0; i < aggs.size(); ++i) prefetched[k][compared_experiments()[i]] = aggs[i];
    }
    for (const std::string &exp : compared_experiments()) {
        const json table = crowd.experiment_table(exp);
        std::map<std::string, const json *> by_key;
        for (const json &m : table["models"]) by_key[m["key"]] = &m;
        bool any = false;
        for (const std::string &k : keys) any = any || by_key.count(k);
        if (!any) continue;
        h << "<section id=\"" << escape_html(exp) << "\">\n<h2><a href=\"" << experiment_href(exp) << "\">" << escape_html(exp) << "</a></h2>\n"
          << "<table class=\"figures\">\n<tr><th>figure</th>";
        for (std::size_t i = 0; i < refs.size(); ++i) h << "<th>" << char('A' + i) << ": " << escape_html(refs[i].name) << "</th>";
        for (std::size_t i = 1; i < refs.size(); ++i) h << "<th>" << char('A' + i) << " / A</th>";
        h << "</tr>\n";
        for (const json &f : view_figures(table, "absolute")) {
            const std::string id = f["id"];
            h << "<tr><td>" << escape_html(f["label"].get<std::string>()) << " <small>(" << escape_html(f["unit"].get<std::string>()) << ")</small></td>";
            std::vector<double> medians;
            for (const std::string &k : keys) {
                const auto it = by_key.find(k);
                if (it == by_key.end() || !(*it->second)["figures"].contains(id)) {
                    medians.push_back(NAN);
                    h << "<td>-</td>";
                    continue;
                }
                const json &s = (*it->second)["figures"][id];
                medians.push_back(s["median"].get<double>());
                h << "<td>" << num(s["median"].get<double>()) << " <small>(" << s["n"].get<std::size_t>() << ")</small></td>";
            }
            for (std::size_t i = 1; i < medians.size(); ++i)
                h << "<td>" << ratio(medians[i], medians[0]) << "</td>";
            h << "</tr>\n";
        }
        h << "</table>\n";
        const std::string canvas = "chart-" + std::to_string(charts.size());
        const json chart = models_chart(crowd, exp, refs, "", {}, canvas, nullptr, &prefetched);
        if (!chart.is_null()) {
            h << "<canvas id=\"" << canvas << "\" width=\"960\" height=\"360\"></canvas>\n";
            charts.push_back(chart);
        }
        h << "</section>\n";
    }
    return gmreport::html_page("gmlab compare: GPU models", h.str(), charts);
}

// A picker: choose up to four models (the page of /compare with fewer than two).
std::string page_compare_picker(const std::vector<GpuCount> &gpus, const std::vector<std::string> &chosen) {
    std::ostringstream h;
    h << crumbs("compare") << "<h1>Compare GPU models</h1>\n<p>Choose two to four models.</p>\n<form method=\"get\" action=\"/compare\">\n";
    for (std::size_t i = 0; i < kMaxCompared; ++i) {
        h << "<select name=\"" << kCompareParams[i] << "\">\n<option value=\"\">-</option>\n";
        for (const GpuCount &g : gpus)
            h << "<option value=\"" << escape_html(g.gpu.key) << "\"" << (i < chosen.size() && chosen[i] == g.gpu.key ? " selected" : "") << ">"
              << escape_html(g.gpu.name) << " (" << g.uploads << " uploads)</option>\n";
        h << "</select>\n";
    }
    h << "<button type=\"submit\">compare</button>\n</form>\n";
    return gmreport::html_page("gmlab compare", h.str(), json::array());
}

std::string standing_html(const json &st) {
    std::ostringstream h;
    const std::string status = st["status"];
    if (status != "accepted")
        h << "<p class=\"error held\"><strong>This upload is " << escape_html(status) << "</strong>: " << escape_html(st["reason"].get<std::string>())
          << ". It is left out of its model's figures, the exports and the comparisons until a moderator accepts it.</p>\n";
    const json &figs = st["figures"];
    if (figs.empty()) return h.str();
    std::size_t unusual = 0;
    for (const json &f : figs) unusual += f.value("unusual", false) ? 1 : 0;
    h << "<section class=\"standing\"><h2>This upload among its model's uploads</h2>\n<p>"
      << (unusual ? std::to_string(unusual) + " of " + std::to_string(figs.size()) + " headline figures are outside the usual range of this model."
                  : "Every headline figure is within the usual range of this model (or too few uploads to tell).")
      << " Percentile: the share of the model's accepted uploads below this one; outside the usual range: more than "
      << gmreport::fixed(kUnusualZ, 1) << " robust standard deviations (median absolute deviation) from the median, judged from " << kMinUploadsToJudge
      << " uploads on.</p>\n<details" << (unusual ? " open" : "") << "><summary>Every headline figure</summary>\n<table class=\"standing\">\n"
      << "<tr><th>experiment</th><th>figure</th><th>this upload</th><th>model median</th><th>quartiles</th><th>uploads</th><th>percentile</th><th></th></tr>\n";
    for (const json &f : figs) {
        const bool has = f.contains("median");
        h << "<tr" << (f.value("unusual", false) ? " class=\"unusual\"" : "") << "><td><a href=\"" << experiment_href(f["experiment"]) << "\">"
          << escape_html(f["experiment"].get<std::string>()) << "</a></td><td title=\"" << escape_html(f["figure"].get<std::string>()) << "\">"
          << escape_html(f.value("label", f["figure"].get<std::string>())) << "</td><td data-v=\""
          << data_value(f["value"].get<double>()) << "\">" << num(f["value"].get<double>()) << "</td><td>" << (has ? num(f["median"].get<double>()) : "-")
          << "</td><td>" << (has ? num(f["q1"].get<double>()) + "&ndash;" + num(f["q3"].get<double>()) : "-") << "</td><td>" << f["n"].get<std::size_t>()
          << "</td><td data-v=\"" << data_value(has ? f["percentile"].get<double>() : -1) << "\">" << (has ? num(std::round(f["percentile"].get<double>())) : "-")
          << "</td><td>" << (f.value("unusual", false) ? "<strong>outside the usual range</strong>" : "") << "</td></tr>\n";
    }
    h << "</table>\n</details>\n</section>\n";
    return h.str();
}

bool is_hex_id(const std::string &s) {
    if (s.size() != 32) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

}  // namespace

void install_crowd_pages(Router &router, Crowd &crowd, std::size_t max_models) {
    Crowd *c = &crowd;
    router.get("/", [c, max_models](const HttpRequest &, HttpResponse &res) {
        std::vector<GpuCount> gpus = c->storage().gpus();
        const std::size_t more = gpus.size() > max_models ? gpus.size() - max_models : 0;
        if (more) gpus.resize(max_models);
        std::string extra = "<h2>Every model side by side, per experiment</h2>\n" + experiment_list_html();
        if (gpus.size() >= 2) {
            std::vector<std::string> keys;
            for (std::size_t i = 0; i < gpus.size() && i < kMaxCompared; ++i) keys.push_back(gpus[i].gpu.key);
            extra += "<p><a href=\"" + compare_href(keys) + "\">Compare the most uploaded models</a> or <a href=\"/compare\">choose up to four</a>.</p>\n";
        }
        extra += "<p>Exports of every accepted point: <a href=\"" + export_href("all", "csv") + "\">CSV</a>, <a href=\"" + export_href("all", "jsonl") +
                 "\">JSON lines</a>.</p>\n";
        send_page(res, 200, before_body_end(page_home(gpus), more_models_note(more, gpus.size()) + extra));
    });
    router.get("/experiments", [](const HttpRequest &, HttpResponse &res) {
        send_page(res, 200, gmreport::html_page("gmlab experiments", crumbs("") + "<h1>Experiments</h1>\n" + experiment_list_html(), json::array()));
    });
    router.get(R"(/experiment/([^/]+))", [c, max_models](const HttpRequest &req, HttpResponse &res) {
        const std::string name = req.matches[1];
        if (!Crowd::known_experiment(name)) {
            std::string valid;
            for (const std::string &n : Crowd::experiment_names()) valid += (valid.empty() ? "" : ", ") + n;
            return send_page(res, 404, page_error(404, "No experiment named " + name + ". Valid names: " + valid));
        }
        std::string view = req.has_param("view") ? req.param("view") : "absolute";
        if (std::find(kViews.begin(), kViews.end(), view) == kViews.end())
            return send_page(res, 400, page_error(400, "view must be absolute, theoretical or copy"));
        const std::string order = req.has_param("order") ? req.param("order") : "desc";
        if (order != "asc" && order != "desc") return send_page(res, 400, page_error(400, "order must be asc or desc"));
        send_page(res, 200, page_experiment(*c, name, view, req.has_param("series") ? req.param("series") : "",
                                            req.has_param("sort") ? req.param("sort") : "", order == "desc", max_models));
    });
    router.get("/compare", [c](const HttpRequest &req, HttpResponse &res) {
        // A comparison takes a slot of the few that may run at once (the picker does not).
        std::optional<ExpensiveGate::Slot> slot;
        if (!req.params.empty() && !slot.emplace(res).ok()) return;
        // Two uploads: the report's comparison of their documents.
        if (req.has_param("a") && req.has_param("b") && is_hex_id(req.param("a")) && is_hex_id(req.param("b"))) {
            const std::optional<StoredRun> ra = c->storage().get(req.param("a")), rb = c->storage().get(req.param("b"));
            if (!ra || !rb) return send_page(res, 404, page_error(404, "No result " + (ra ? req.param("b") : req.param("a"))));
            return send_page(res, 200, page_compare_runs(*ra, *rb));
        }
        // Models: a, b, c, d (gpu_a and gpu_b as the older links had them).
        std::vector<std::string> keys;
        for (const auto &[k, v] : req.params) {
            const bool model_param = k == "gpu_a" || k == "gpu_b" || (k.size() == 1 && k[0] >= 'a' && k[0] <= 'z');
            if (!model_param) continue;
            if (k.size() == 1 && k[0] > 'd') return send_page(res, 400, page_error(400, "At most four models: a, b, c and d"));
            if (!v.empty()) keys.push_back(v);
        }
        if (keys.size() > kMaxCompared) return send_page(res, 400, page_error(400, "At most four models can be compared at once"));
        std::vector<GpuCount> gpus = c->gpus();
        const auto known = [&](const std::string &k) {
            return std::any_of(gpus.begin(), gpus.end(), [&](const GpuCount &g) { return g.gpu.key == k; });
        };
        // A model that had its first upload within the last second: look again.
        if (!std::all_of(keys.begin(), keys.end(), known)) gpus = c->gpus(true);
        std::vector<GpuIdentity> chosen;
        for (const std::string &k : keys) {
            const auto it = std::find_if(gpus.begin(), gpus.end(), [&](const GpuCount &g) { return g.gpu.key == k; });
            if (it == gpus.end()) {
                std::string valid;
                for (const GpuCount &g : gpus) valid += (valid.empty() ? "" : ", ") + g.gpu.key;
                return send_page(res, 404, page_error(404, "No uploads for GPU model " + k + ". Valid models: " + valid));
            }
            chosen.push_back(it->gpu);
        }
        if (chosen.size() < 2) return send_page(res, 200, page_compare_picker(gpus, keys));
        send_page(res, 200, page_compare_models(*c, chosen));
    });
    router.get(R"(/result/([^/]+))", [c](const HttpRequest &req, HttpResponse &res) {
        const std::string id = req.matches[1];
        std::optional<StoredRun> run;
        if (is_hex_id(id)) run = c->storage().get(id);
        if (!run) return send_page(res, 404, page_error(404, "No result " + id));
        send_page(res, 200, after_crumbs(page_result(*run), standing_html(c->standing(*run))));
    });
}

}  // namespace gmserver
