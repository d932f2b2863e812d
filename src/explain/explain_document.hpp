// The explanation as a document (gmlab.explain/1, docs/explain.md) and as text.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/rule_book.hpp"
#include "explain/trace_summary.hpp"

namespace gmexplain {

constexpr const char *kExplainSchema = "gmlab.explain/1.0";

nlohmann::json finding_json(const Finding &f);
nlohmann::json kernel_json(const KernelSummary &k, int rank);
// A kernel's traced launches against its counted time (kernels[].traced_vs_counted),
// with the likely cause of slow launches as text.
nlohmann::json slowdown_json(const Slowdown &s, int device);

// The text summary: kernels ranked by time, each with its findings and gain,
// then the whole program's findings and the notes.
std::string explanation_text(const nlohmann::json &doc);

// Checks a document against the schema's required fields; "" or what is wrong.
std::string check_explain_document(const nlohmann::json &doc);

}  // namespace gmexplain
