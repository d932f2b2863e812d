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
// A kernel's traced launches against its counted time (kernels[].traced_vs_counted),
// with the likely cause of slow launches as text.
nlohmann::json slowdown_json(const Slowdown &s, int device);

// A kernel's call site as the explanation shows it: in the document
// ("call_site": file, line, function, the ATen operator, the autograd node
// where the launch ran a backward, and the line's source text where the file
// can be read) and as one line of text.
// A C/C++ program's site is its innermost frame that is neither the CUDA
// runtime linked into the program nor `kernel`'s own host stub.
nlohmann::json call_site_json(const CallSiteRecord &site, const std::string &kernel = "");

// "at train.py:12 in forward: y = x.t().contiguous()  [aten::clone]", or for
// a backward "... [aten::mm, backward: MmBackward0]"; "" for a null site.
std::string call_site_text(const nlohmann::json &site);

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
