// Metrics in the Prometheus text format (version 0.0.4): counters and
// histograms kept here, gauges read when scraped. Knows nothing of what is
// counted: the transport (request_metrics.hpp) and the layers above declare
// their families and feed them.
//
// Every method is safe from any thread. A family is declared once, before it
// is fed; a series (a family with one set of label values) is created at its
// first use, so the label values must come from a small set (route patterns,
// status codes, reasons), never from what a client sent.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gmserver {

// Label name and value pairs, in the family's order of names.
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

// One gauge reading: labels and value.
struct GaugeSample {
    MetricLabels labels;
    double value = 0;
};

class Metrics {
public:
    Metrics() = default;
    Metrics(const Metrics &) = delete;
    Metrics &operator=(const Metrics &) = delete;

    // A counter family; add() raises one of its series.
    void declare_counter(const std::string &name, const std::string &help);
    // A histogram family with these upper bounds (ascending; +Inf is added).
    void declare_histogram(const std::string &name, const std::string &help, std::vector<double> bounds);
    // A gauge family read at each scrape (read runs outside the registry's lock).
    void declare_gauge(const std::string &name, const std::string &help, std::function<std::vector<GaugeSample>()> read);
    // A counter kept elsewhere (a process-wide count), read at each scrape as a gauge is.
    void declare_read_counter(const std::string &name, const std::string &help,
                              std::function<std::vector<GaugeSample>()> read);

    // Throws std::logic_error for a family that was not declared as a counter.
    void add(const std::string &name, const MetricLabels &labels, double n = 1);
    // Throws std::logic_error for a family that was not declared as a histogram.
    void observe(const std::string &name, const MetricLabels &labels, double value);

    // The value of one counter series (0 when it has not been used): for tests.
    double counter_value(const std::string &name, const MetricLabels &labels) const;

    // Every family, in the order declared, in the text format.
    std::string render() const;

private:
    struct Series {
        MetricLabels labels;
        double value = 0;             // counters
        std::vector<double> buckets;  // histograms: cumulative counts are made when rendered
        double sum = 0;
        double count = 0;
    };
    enum class Kind { Counter, Histogram, Gauge, ReadCounter };
    struct Family {
        std::string name, help;
        Kind kind;
        std::vector<double> bounds;
        std::function<std::vector<GaugeSample>()> read;
        std::map<std::string, Series> series;  // keyed by the joined label values
    };
    Family &family(const std::string &name, Kind kind);
    void declare(Family f);
    static std::string key_of(const MetricLabels &labels);

    mutable std::mutex mu_;
    std::vector<std::unique_ptr<Family>> families_;
    std::map<std::string, Family *, std::less<>> by_name_;
};

// The text format's escaping of a label value (backslash, quote, newline).
std::string metric_label_value(const std::string &v);

}  // namespace gmserver
