#include "http/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace gmserver {

namespace {

void append_number(std::string &out, double v) {
    if (std::isinf(v)) {
        out += v > 0 ? "+Inf" : "-Inf";
        return;
    }
    if (std::isnan(v)) {
        out += "NaN";
        return;
    }
    // The shortest text that reads back as the same double.
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void append_labels(std::string &out, const MetricLabels &labels, const char *extra_name = nullptr,
                   const std::string *extra_value = nullptr) {
    if (labels.empty() && !extra_name) return;
    out += '{';
    bool first = true;
    for (const auto &[k, v] : labels) {
        if (!first) out += ',';
        first = false;
        out += k;
        out += "=\"";
        out += metric_label_value(v);
        out += '"';
    }
    if (extra_name) {
        if (!first) out += ',';
        out += extra_name;
        out += "=\"";
        out += *extra_value;
        out += '"';
    }
    out += '}';
}


// One sample line: NAME{labels[,extra]} VALUE.
void append_sample(std::string &out, const std::string &name, const char *suffix, const MetricLabels &labels, double value,
                   const char *extra_name = nullptr, const std::string *extra_value = nullptr) {
    out += name;
    out += suffix;
    append_labels(out, labels, extra_name, extra_value);
    out += ' ';
    append_number(out, value);
    out += '\n';
}

}  // namespace

std::string metric_label_value(const std::string &v) {
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

void Metrics::declare(Family f) {
    std::lock_guard<std::mutex> lock(mu_);
    if (by_name_.count(f.name)) return;
    families_.push_back(std::make_unique<Family>(std::move(f)));
    by_name_[families_.back()->name] = families_.back().get();
}

void Metrics::declare_counter(const std::string &name, const std::string &help) {
    declare(Family{name, help, Kind::Counter, {}, {}, {}});
}

void Metrics::declare_histogram(const std::string &name, const std::string &help, std::vector<double> bounds) {
    std::sort(bounds.begin(), bounds.end());
    declare(Family{name, help, Kind::Histogram, std::move(bounds), {}, {}});
}

void Metrics::declare_gauge(const std::string &name, const std::string &help,
                            std::function<std::vector<GaugeSample>()> read) {
    declare(Family{name, help, Kind::Gauge, {}, std::move(read), {}});
}

void Metrics::declare_read_counter(const std::string &name, const std::string &help,
                                   std::function<std::vector<GaugeSample>()> read) {
    declare(Family{name, help, Kind::ReadCounter, {}, std::move(read), {}});
}

std::string Metrics::key_of(const MetricLabels &labels) {
    std::string key;
    for (const auto &l : labels) {
        key += l.second;
        key += '\x1f';
    }
    return key;
}

Metrics::Family &Metrics::family(const std::string &name, Kind kind) {
    const auto it = by_name_.find(name);
    if (it == by_name_.end() || it->second->kind != kind) throw std::logic_error("metrics: " + name + " was not declared so");
    return *it->second;
}

void Metrics::add(const std::string &name, const MetricLabels &labels, double n) {
    const std::string key = key_of(labels);
    std::lock_guard<std::mutex> lock(mu_);
    Family &f = family(name, Kind::Counter);
    auto it = f.series.find(key);
    if (it == f.series.end()) it = f.series.emplace(key, Series{labels, 0, {}, 0, 0}).first;
    it->second.value += n;
}

void Metrics::observe(const std::string &name, const MetricLabels &labels, double value) {
    const std::string key = key_of(labels);
    std::lock_guard<std::mutex> lock(mu_);
    Family &f = family(name, Kind::Histogram);
    auto it = f.series.find(key);
    if (it == f.series.end())
        it = f.series.emplace(key, Series{labels, 0, std::vector<double>(f.bounds.size(), 0), 0, 0}).first;
    Series &s = it->second;
    // The first bucket whose bound holds the value (past the last: only +Inf).
    const auto b = std::lower_bound(f.bounds.begin(), f.bounds.end(), value);
    if (b != f.bounds.end()) s.buckets[static_cast<std::size_t>(b - f.bounds.begin())] += 1;
    s.sum += value;
    s.count += 1;
}

double Metrics::counter_value(const std::string &name, const MetricLabels &labels) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = by_name_.find(name);
    if (it == by_name_.end()) return 0;
    const auto s = it->second->series.find(key_of(labels));
    return s == it->second->series.end() ? 0 : s->second.value;
}

std::string Metrics::render() const {
    // Gauges are read first, outside the lock: their readers may take locks
    // of their own (the transport's, the storage's).
    std::map<const Family *, std::vector<GaugeSample>> gauges;
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (const auto &f : families_)
            if (f->read) gauges[f.get()];
    }
    for (auto &g : gauges) g.second = g.first->read();
    std::string out;
    out.reserve(16384);
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto &f : families_) {
        out += "# HELP " + f->name + " " + f->help + "\n# TYPE " + f->name + " ";
        out += f->kind == Kind::Histogram ? "histogram\n" : f->kind == Kind::Gauge ? "gauge\n" : "counter\n";
        if (f->read) {
            for (const GaugeSample &s : gauges[f.get()]) append_sample(out, f->name, "", s.labels, s.value);
            continue;
        }
        for (const auto &[key, s] : f->series) {
            if (f->kind == Kind::Counter) {
                append_sample(out, f->name, "", s.labels, s.value);
                continue;
            }
            double cumulative = 0;
            for (std::size_t i = 0; i <= f->bounds.size(); ++i) {
                cumulative = i < f->bounds.size() ? cumulative + s.buckets[i] : s.count;
                std::string le;
                append_number(le, i < f->bounds.size() ? f->bounds[i] : INFINITY);
                append_sample(out, f->name, "_bucket", s.labels, cumulative, "le", &le);
            }
            append_sample(out, f->name, "_sum", s.labels, s.sum);
            append_sample(out, f->name, "_count", s.labels, s.count);
        }
    }
    return out;
}

}  // namespace gmserver
