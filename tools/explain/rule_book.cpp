#include "explain/rule_book.hpp"

#include "explain/measure_now.hpp"

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <stdexcept>

namespace gmexplain {

using nlohmann::json;

// The rule files, compiled in (rules_data.cpp, generated from tools/explain/rules/).
extern const std::vector<std::pair<std::string, std::string>> &builtin_rule_files();

namespace {

std::string need_string(const json &j, const char *key, const std::string &origin, bool required = true) {
    if (!j.contains(key)) {
        if (required) throw std::invalid_argument(origin + ": field \"" + key + "\" is missing");
        return "";
    }
    if (!j[key].is_string()) throw std::invalid_argument(origin + ": field \"" + key + "\" must be a string");
    return j[key].get<std::string>();
}

void check_expression(const std::string &text, const std::string &origin, const char *field) {
    if (text.empty()) return;
    try {
        names_in(text);
    } catch (const std::invalid_argument &e) {
        throw std::invalid_argument(origin + ": " + field + ": " + e.what());
    }
}

// The optional "measure" object of a cost: how to measure it on the spot.
void parse_measure(const json &cost, CostSpec &spec, const std::string &origin) {
    if (!cost.contains("measure")) return;
    const json &m = cost["measure"];
    const std::string where = origin + ": measure";
    if (!m.is_object()) throw std::invalid_argument(where + " must be an object");
    if (m.contains("params")) {
        if (!m["params"].is_object()) throw std::invalid_argument(where + ": params must be an object");
        spec.measure_params = m["params"];
    }
    spec.measure_points = need_string(m, "points", where, false);
    if (!spec.measure_points.empty() && spec.at.empty())
        throw std::invalid_argument(where + ": points needs a cost read at a point (\"at\")");
    if (m.contains("range")) {
        if (!m["range"].is_array() || m["range"].size() != 2 || spec.at.empty())
            throw std::invalid_argument(where + ": range must name two size parameters, and the cost must have \"at\"");
        for (const auto &n : m["range"]) spec.measure_range.push_back(n.get<std::string>());
    }
}

// Where a figure is read in the lab's run: a summary figure, or a series'
// point at `at` (over the point at `baseline`, if given).
CostSpec parse_lab_lookup(const json &c, const std::string &origin) {
    CostSpec spec;
    spec.experiment = need_string(c, "experiment", origin);
    spec.summary = need_string(c, "summary", origin, false);
    spec.series = need_string(c, "series", origin, spec.summary.empty());
    spec.value = need_string(c, "value", origin, spec.summary.empty());
    spec.at = need_string(c, "at", origin, spec.summary.empty());
    spec.baseline = need_string(c, "baseline", origin, false);
    parse_measure(c, spec, origin);
    check_expression(spec.at, origin, "at");
    check_expression(spec.baseline, origin, "baseline");
    return spec;
}

}  // namespace

Rule parse_rule(const json &j, const std::string &origin) {
    Rule r;
    r.id = need_string(j, "id", origin);
    r.scope = need_string(j, "scope", origin);
    if (r.scope != "kernel" && r.scope != "run")
        throw std::invalid_argument(origin + ": scope must be \"kernel\" or \"run\", not \"" + r.scope + "\"");
    r.title = need_string(j, "title", origin);
    r.when = need_string(j, "when", origin);
    r.finding = need_string(j, "finding", origin);
    r.experiment = need_string(j, "experiment", origin);
    r.fix = need_string(j, "fix", origin);
    r.guide = need_string(j, "guide", origin, false);
    r.gain = need_string(j, "gain", origin);
    if (!j.contains("evidence") || !j["evidence"].is_array())
        throw std::invalid_argument(origin + ": field \"evidence\" must be a list of figure names");
    for (const auto &e : j["evidence"]) r.evidence.push_back(e.get<std::string>());
    if (!j.contains("cost") || !j["cost"].is_object()) throw std::invalid_argument(origin + ": field \"cost\" is missing");
    const json &c = j["cost"];
    const std::string corigin = origin + ": cost";
    r.cost = parse_lab_lookup(c, corigin);
    r.cost_text = need_string(c, "text", corigin);
    if (j.contains("see_also")) {
        if (!j["see_also"].is_array()) throw std::invalid_argument(origin + ": field \"see_also\" must be a list of experiment names");
        for (const auto &e : j["see_also"]) r.see_also.push_back(e.get<std::string>());
    }
    if (j.contains("gain_band")) {
        const json &b = j["gain_band"];
        if (!b.is_object() || !b.contains("factor") || !b["factor"].is_number() || b["factor"].get<double>() < 1.5)
            throw std::invalid_argument(origin + ": field \"gain_band\" must be {\"factor\": a number of at least 1.5, \"why\": text}");
        r.gain_band = b["factor"].get<double>();
        r.gain_band_why = need_string(b, "why", origin + ": gain_band");
    }
    r.limiting = need_string(j, "limiting", origin, false);
    r.not_limiting_text = need_string(j, "not_limiting", origin, !r.limiting.empty());
    check_expression(r.limiting, origin, "limiting");
    check_expression(r.when, origin, "when");
    check_expression(r.gain, origin, "gain");
    return r;
}

namespace {

void add_file(RuleBook &book, const std::string &name, const std::string &text) {
    json j;
    try {
        j = json::parse(text);
    } catch (const std::exception &e) {
        throw std::invalid_argument(name + " is not JSON: " + e.what());
    }
    if (name == "figures.json" || (name.size() > 13 && name.substr(name.size() - 13) == "/figures.json")) {
        for (const auto &[k, v] : j.at("derived").items()) {
            check_expression(v.get<std::string>(), name, k.c_str());
            book.derived[k] = v.get<std::string>();
        }
        if (j.contains("report"))
            for (const auto &r : j["report"]) book.report.push_back(r.get<std::string>());
        if (j.contains("lab"))
            for (const auto &[k, v] : j["lab"].items()) book.lab[k] = parse_lab_lookup(v, name + ": lab: " + k);
        if (j.contains("recorded_before"))
            for (const auto &[k, v] : j["recorded_before"].items()) book.recorded_before[k] = v.get<std::string>();
        return;
    }
    book.rules.push_back(parse_rule(j, name));
}

}  // namespace

RuleBook load_rules(const std::string &folder) {
    RuleBook book;
    if (folder.empty()) {
        for (const auto &[name, text] : builtin_rule_files()) add_file(book, name, text);
    } else {
        DIR *dir = opendir(folder.c_str());
        if (!dir) throw std::invalid_argument("--rules " + folder + ": not a readable folder");
        std::vector<std::string> names;
        while (dirent *e = readdir(dir)) {
            const std::string n = e->d_name;
            if (n.size() > 5 && n.substr(n.size() - 5) == ".json") names.push_back(n);
        }
        closedir(dir);
        std::sort(names.begin(), names.end());
        for (const auto &n : names) {
            std::ifstream in(folder + "/" + n);
            std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            add_file(book, n == "figures.json" ? n : folder + "/" + n, text);
        }
    }
    std::sort(book.rules.begin(), book.rules.end(), [](const Rule &a, const Rule &b) { return a.id < b.id; });
    return book;
}

std::vector<std::string> RuleBook::metrics() const {
    std::set<std::string> names, seen;
    std::vector<std::string> todo;
    for (const auto &r : rules) {
        if (r.scope != "kernel") continue;
        for (const auto &e : {r.when, r.gain, r.cost.at, r.cost.baseline, r.limiting})
            if (!e.empty())
                for (const auto &n : names_in(e)) todo.push_back(n);
        for (const auto &e : r.evidence) todo.push_back(e);
    }
    for (const auto &r : report) todo.push_back(r);
    while (!todo.empty()) {
        const std::string n = todo.back();
        todo.pop_back();
        if (!seen.insert(n).second) continue;
        if (n.find("__") != std::string::npos) names.insert(n);
        auto it = derived.find(n);
        if (it != derived.end())
            for (const auto &m : names_in(it->second)) todo.push_back(m);
    }
    return {names.begin(), names.end()};
}

std::optional<double> Figures::get(const std::string &name) const {
    auto b = base_.find(name);
    if (b != base_.end()) return b->second;
    auto before = book_.recorded_before.find(name);
    if (before != book_.recorded_before.end() && (b = base_.find(before->second)) != base_.end()) return b->second;
    auto c = cache_.find(name);
    if (c != cache_.end()) return c->second;
    auto d = book_.derived.find(name);
    if (d == book_.derived.end()) return std::nullopt;
    if (std::find(stack_.begin(), stack_.end(), name) != stack_.end())
        throw std::invalid_argument("figures.json: " + name + " is defined in terms of itself");
    stack_.push_back(name);
    const auto v = evaluate(d->second, lookup());
    stack_.pop_back();
    cache_[name] = v;
    return v;
}

std::optional<double> combined_gain_ms(const std::vector<Finding> &findings, double limit_ms) {
    std::optional<double> sum;
    for (const auto &f : findings)
        if (f.gain_ms) sum = sum.value_or(0) + *f.gain_ms;
    if (sum && *sum > limit_ms) sum = limit_ms;
    return sum;
}

std::string fill_template(const std::string &text, const Lookup &figures) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] != '{') {
            out += text[i++];
            continue;
        }
        const std::size_t close = text.find('}', i);
        if (close == std::string::npos) {
            out += text.substr(i);
            break;
        }
        std::string name = text.substr(i + 1, close - i - 1), format = "%.3g";
        if (const std::size_t colon = name.find(':'); colon != std::string::npos) {
            format = "%" + name.substr(colon + 1);
            name = name.substr(0, colon);
        }
        // "{share:.0%}": a share printed as a percentage.
        const bool percent = format.size() > 1 && format.back() == '%';
        if (percent) format = format.substr(0, format.size() - 1) + "f";
        auto v = figures(name);
        if (v && percent) *v *= 100;
        char buf[64];
        if (v) std::snprintf(buf, sizeof buf, format.c_str(), *v);
        out += v ? std::string(buf) + (percent ? " %" : "") : "?";
        i = close + 1;
    }
    return out;
}

namespace {

Finding make_finding(const Rule &rule, Figures &figures, const LabRun *lab, const std::string &lab_missing) {
    Finding f;
    f.rule = rule.id;
    f.title = rule.title;
    f.experiment = rule.experiment;
    f.fix = rule.fix;
    f.guide = rule.guide;
    f.see_also = rule.see_also;
    f.gain_band = rule.gain_band;
    f.gain_band_why = rule.gain_band_why;
    for (const auto &e : rule.evidence)
        if (const auto v = figures.get(e)) f.evidence.emplace_back(e, *v);
    if (lab) f.cost = look_up_cost(*lab, rule.cost, figures.lookup());
    else f.cost.missing = lab_missing;
    if (f.cost.found) {
        figures.set("cost", f.cost.value);
        figures.set("cost_pct", f.cost.value * 100);
        figures.set("cost_at", f.cost.at_x);
        figures.set("cost_baseline", f.cost.baseline_x);
        f.cost_text = fill_template(rule.cost_text, figures.lookup());
        f.gain_ms = evaluate(rule.gain, figures.lookup());
        if (f.gain_ms && *f.gain_ms < 0) f.gain_ms = 0.0;
    } else {
        f.measure = measurement_request(rule.cost, figures.lookup());
    }
    f.text = fill_template(rule.finding, figures.lookup());
    if (!rule.limiting.empty()) {
        const auto limits = evaluate(rule.limiting, figures.lookup());
        if (limits && *limits == 0) {
            f.limiting = false;
            f.gain_ms.reset();
            f.not_limiting = fill_template(rule.not_limiting_text, figures.lookup());
        }
    }
    return f;
}

}  // namespace

void add_lab_figures(const RuleBook &book, Figures &figures, const LabRun *lab) {
    if (!lab) return;
    for (const auto &[name, spec] : book.lab)
        if (const Cost c = look_up_cost(*lab, spec, figures.lookup()); c.found) figures.set(name, c.value);
}

Verdicts apply_rules(const RuleBook &book, const std::string &scope, Figures &figures, const LabRun *lab,
                     const std::string &lab_missing) {
    Verdicts v;
    add_lab_figures(book, figures, lab);
    for (const auto &rule : book.rules) {
        if (rule.scope != scope) continue;
        const auto holds = evaluate(rule.when, figures.lookup());
        if (!holds) {
            std::string missing;
            for (const auto &n : names_in(rule.when))
                if (!figures.get(n)) missing += (missing.empty() ? "" : ", ") + n;
            v.not_evaluated.push_back(rule.id + ": no value for " + missing);
            continue;
        }
        if (*holds != 0) v.findings.push_back(make_finding(rule, figures, lab, lab_missing));
    }
    return v;
}

}  // namespace gmexplain
