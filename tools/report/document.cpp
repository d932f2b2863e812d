#include "document.hpp"

#include <cstdio>
#include <fstream>
#include <vector>

#include "compressed.hpp"
#include "gmlab.h"
#include "table.hpp"

namespace gmreport {

using nlohmann::json;

namespace {

// Every /1 minor version is read: a minor version only adds optional fields.
// 1.2 adds the hardware counters, 1.3 each series' quantity.
bool is_run(const std::string &schema) {
    return schema == "gmlab.run/1" || schema == "gmlab.run/1.1" || schema == "gmlab.run/1.2" || schema == "gmlab.run/1.3";
}
bool is_result(const std::string &schema) {
    return schema == "gmlab.result/1" || schema == "gmlab.result/1.1" || schema == "gmlab.result/1.2" ||
           schema == "gmlab.result/1.3";
}
const char *kRun = "gmlab.run/1.3";

[[noreturn]] void bad(const std::string &where, const std::string &what) { throw ReportError(where + ": " + what); }

}  // namespace

json as_run(const json &doc, const std::string &where) {
    if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string())
        bad(where, "not a gmlab result (no \"schema\" field)");
    const std::string schema = doc["schema"];
    if (schema.rfind("gmlab.", 0) != 0) bad(where, "not a gmlab result (schema \"" + schema + "\")");
    if (is_result(schema)) {
        // One result: wrap it as a run whose device block is the result's own.
        json r = doc;
        gm_result *res = nullptr;
        if (gm_result_from_json(&res, r.dump().c_str()) != GM_OK) bad(where, gm_last_error());
        gm_result_destroy(res);
        if (!r.contains("device") || !r["device"].is_object()) bad(where, "the result has no \"device\" block");
        json device = r["device"];
        r.erase("device");
        json run = {{"schema", kRun}, {"library", r.value("library", json::object())}, {"command", ""},
                    {"created_at", r.value("finished_at", "")}, {"device", device},
                    {"settings", r.value("settings", json::object())}, {"results", json::array({r})}};
        if (is_quick(r)) run["quick"] = true;
        return run;
    }
    if (!is_run(schema))
        bad(where, "unknown schema version \"" + schema + "\" (this gmlab reads gmlab.run/1, /1.1 and /1.2 and gmlab.result/1, /1.1 and /1.2)");
    if (!doc.contains("device") || !doc["device"].is_object() || !doc["device"].contains("name"))
        bad(where, "the run has no \"device\" block with a name");
    const std::string text = doc.dump();
    size_t n = 0;
    if (gm_run_document_result_count(&n, text.c_str()) != GM_OK) bad(where, gm_last_error());
    if (n == 0) bad(where, "the run holds no results");
    for (size_t i = 0; i < n; ++i) {
        gm_result *res = nullptr;
        if (gm_result_from_run_json(&res, text.c_str(), i) != GM_OK)
            bad(where, "result " + std::to_string(i) + ": " + gm_last_error());
        gm_result_destroy(res);
    }
    return doc;
}

bool is_quick(const json &doc) {
    if (!doc.is_object()) return false;
    if (doc.contains("quick") && doc["quick"].is_boolean() && doc["quick"].get<bool>()) return true;
    if (doc.contains("results") && doc["results"].is_array())
        for (const json &r : doc["results"])
            if (r.is_object() && r.contains("quick") && r["quick"].is_boolean() && r["quick"].get<bool>()) return true;
    return false;
}

json load_run(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) bad(path, "cannot be read");
    // Read in pieces, and no further than any document goes.
    std::string bytes;
    std::vector<char> piece(1 << 20);
    while (f.read(piece.data(), static_cast<std::streamsize>(piece.size())) || f.gcount() > 0) {
        bytes.append(piece.data(), static_cast<std::size_t>(f.gcount()));
        if (bytes.size() > kMaxDocumentBytes)
            bad(path, "is larger than " + gmreport::bytes_text(double(kMaxDocumentBytes)) + ", far more than any gmlab document: not read");
    }
    if (f.bad()) bad(path, "cannot be read");
    if (bytes.empty()) bad(path, "is empty");
    // gzip or zstd by the first bytes, whatever the file is called.
    const Compression c = compression_of(bytes);
    const std::string text = decompressed(bytes, path);
    const std::string what = c == Compression::none ? "" : std::string(" ") + compression_name(c) + " document";
    if (text.empty()) bad(path, "is an empty" + what);  // (bytes is not empty: only compressed text can be)
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded())
        bad(path, c == Compression::none ? "is not valid JSON (truncated or damaged?)"
                                         : "is a" + what + " whose content is not valid JSON (truncated or damaged before it was compressed?)");
    return as_run(doc, path);
}

void write_atomically(const std::string &path, const std::string &text) {
    const std::string tmp = path + ".partial";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << text;
        f.close();
        if (!f) {
            std::remove(tmp.c_str());
            throw ReportError(path + ": cannot be written");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw ReportError(path + ": cannot be written");
    }
}

const nlohmann::json *find_result(const nlohmann::json &run, const std::string &experiment) {
    if (!run.is_object() || !run.contains("results") || !run["results"].is_array()) return nullptr;
    for (const nlohmann::json &r : run["results"])
        if (r.is_object() && r.contains("experiment") && r["experiment"].is_object() &&
            r["experiment"].value("name", "") == experiment)
            return &r;
    return nullptr;
}

}  // namespace gmreport
