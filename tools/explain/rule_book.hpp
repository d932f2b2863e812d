// The diagnoses, as data: one JSON file per rule in tools/explain/rules/
// (compiled into the library; --rules DIR reads another folder), and
// rules/figures.json for the figures derived from the counters. A rule reads
// figures, states a condition, names the finding, the gmlab experiment that
// demonstrates it on this GPU, where its cost is read from a run of that
// experiment, the gain that cost implies and the guide's fix
// (docs/explain.md, "Rules").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/expression.hpp"
#include "explain/lab_figures.hpp"

namespace gmexplain {

struct Rule {
    std::string id, scope;  // scope: "kernel" (counters of one kernel) or "run" (the trace of the whole program)
    std::string title, when, finding, experiment, fix, guide;
    std::vector<std::string> evidence;  // figures printed with their values
    std::vector<std::string> see_also;  // other experiments that demonstrate the pattern (not costed)
    CostSpec cost;
    std::string cost_text;              // how the cost prints ({cost}, {cost_pct}, {cost_at}, {cost_baseline})
    std::string gain;                   // expression: the time a fix saves, in ms, from the figures and {cost}
    // Optional: whether the memory path the rule names limits the kernel
    // (0: the pattern is present but something else, such as the compute
    // units, sets the kernel's time; no gain then). Unknown counts as limiting.
    std::string limiting;
    std::string not_limiting_text;      // why not, from the figures
    // The factor within which the estimated gain held to the gain its fix
    // realised on the lab's planted/fixed pairs (docs/explain.md, "Estimated
    // against realized gain"), and why, where a rule holds to a wider band
    // than the 1.5 every rule aims at; 1.5 and "" otherwise.
    double gain_band = 1.5;
    std::string gain_band_why;
};

struct RuleBook {
    std::vector<Rule> rules;
    std::map<std::string, std::string> derived;  // figure name -> expression (figures.json)
    std::vector<std::string> report;             // figures printed with every counted kernel (figures.json)
    // Figures read from the lab's run, as a cost is (figures.json "lab"): the
    // gains' floors and rates that are measured on this GPU, not assumed.
    std::map<std::string, CostSpec> lab;
    // A counter read now -> the counter earlier versions' records hold in its
    // place (figures.json "recorded_before"): such records are read with it.
    std::map<std::string, std::string> recorded_before;
    // The range-profiler metrics the kernel rules read (names with "__").
    std::vector<std::string> metrics() const;
};

// Parses one rule file; throws std::invalid_argument naming the file and field.
Rule parse_rule(const nlohmann::json &j, const std::string &origin);
// The compiled-in rules, or every *.json in `folder` when not empty.
RuleBook load_rules(const std::string &folder = "");

struct Finding {
    std::string rule, title, text, experiment, fix, guide;
    std::vector<std::pair<std::string, double>> evidence;
    Cost cost;
    std::string cost_text;
    std::optional<double> gain_ms;
    std::string launches;  // kernel findings: "2 of 4 counted launches"
    bool limiting = true;  // false: present, not limiting (no gain, not in the summary)
    std::string not_limiting;  // the evidence for that
    double gain_band = 1.5;     // the rule's: how far the estimate may stand from the realized gain
    std::string gain_band_why;  // "" where the rule holds to 1.5
    std::vector<std::string> see_also;
    // Without a cost: what to measure to get it ({"experiment", "parameters"}, the
    // parameters without the experiment's --quick ones; null where the point
    // to read needs a figure that was not counted).
    nlohmann::json measure;
};

// Figures of one subject (a kernel or the run), with the derived ones of the
// book computed on demand.
class Figures {
public:
    Figures(const RuleBook &book, std::map<std::string, double> base) : book_(book), base_(std::move(base)) {}
    std::optional<double> get(const std::string &name) const;
    void set(const std::string &name, double v) {
        base_[name] = v;
        cache_.clear();  // derived figures may read it
    }
    Lookup lookup() const {
        return [this](const std::string &n) { return get(n); };
    }

private:
    const RuleBook &book_;
    std::map<std::string, double> base_;
    mutable std::map<std::string, std::optional<double>> cache_;
    mutable std::vector<std::string> stack_;
};

struct Verdicts {
    std::vector<Finding> findings;
    std::vector<std::string> not_evaluated;  // "rule: missing figure a, b"
};

// Sets the book's lab figures (figures.json "lab") that `lab` holds into `figures`.
void add_lab_figures(const RuleBook &book, Figures &figures, const LabRun *lab);

// Applies every rule of `scope` to `figures`; costs come from `lab` where given.
Verdicts apply_rules(const RuleBook &book, const std::string &scope, Figures &figures, const LabRun *lab,
                     const std::string &lab_missing);

// What the findings of one subject could save together: their gains' sum, at
// most `limit_ms` (a kernel's findings cannot save more than the kernel's own
// time, however many name it); nullopt where none has a gain.
std::optional<double> combined_gain_ms(const std::vector<Finding> &findings, double limit_ms);

// "{name}" and "{name:.1f}" replaced by the figures' values.
std::string fill_template(const std::string &text, const Lookup &figures);

}  // namespace gmexplain
