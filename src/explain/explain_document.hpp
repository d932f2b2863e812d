// The explanation as a document (gmlab.explain/1, docs/explain.md) and as text.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/rule_book.hpp"
#include "explain/trace_summary.hpp"

namespace gmexplain {

// 1.1: each kernel's short_name.
constexpr const char *kExplainSchema = "gmlab.explain/1.1";

nlohmann::json finding_json(const Finding &f);
nlohmann::json kernel_json(const KernelSummary &k, int rank);

// The name a person reads for a kernel of the document: its short_name.
std::string kernel_display_name(const nlohmann::json &kernel);

// A document written before short names (schema 1.0): each kernel's
// short_name, told apart from the others' as a new document's are.
void add_short_names(nlohmann::json &doc);

// The text summary: kernels ranked by time, each with its findings and gain,
// then the whole program's findings and the notes.
std::string explanation_text(const nlohmann::json &doc);

// Checks a document against the schema's required fields; "" or what is wrong.
std::string check_explain_document(const nlohmann::json &doc);

}  // namespace gmexplain
