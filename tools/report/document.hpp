// Reading the documents reports are made from, and writing reports so that a
// failure leaves no partial file behind.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace gmreport {

// A message that names the file and what is wrong with it.
class ReportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads a gmlab.run/1 document, or a gmlab.result/1 one (wrapped as a run of
// one result), and checks every result through the library. The file may be
// gzip or zstd (compressed.hpp: told by its first bytes). Throws ReportError.
nlohmann::json load_run(const std::string &path);

// The same check for a document already in memory; `where` names it in errors.
nlohmann::json as_run(const nlohmann::json &doc, const std::string &where);

// True for a run made by `gmlab run --quick` (the run or any of its results
// marked "quick"): a smoke check, whose figures reports label as such.
bool is_quick(const nlohmann::json &run_or_result);

// The result of `experiment` in a run document; nullptr where the run has
// none (or is not a run).
const nlohmann::json *find_result(const nlohmann::json &run, const std::string &experiment);
// The label reports put on such a run.
inline constexpr const char *kQuickNote =
    "QUICK RUN (gmlab run --quick): a smoke check that every experiment runs and verifies, with small sweeps and "
    "3 launches per point. These figures are not measurements: do not compare or publish them.";

// Writes text to a temporary file beside path and renames it over path.
void write_atomically(const std::string &path, const std::string &text);

}  // namespace gmreport
