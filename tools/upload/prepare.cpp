// What an upload makes public. A run document describes a GPU model and what
// was measured on it; the few fields that identify one particular board or
// machine are removed here, before anything is shown or sent.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "document.hpp"
#include "upload.hpp"

namespace gmupload {

using nlohmann::json;

namespace {

// The device block's per-board identifiers: the GPU UUID is a serial number
// in all but name, and the PCI bus id is where the board sits in one host.
// Neither helps compare GPU models.
const char *const kBoardFields[] = {"uuid", "pci_bus_id"};

// A command-line word with directories in it ("/home/alice/run.json") keeps
// only its last component: paths name users and machines. URLs are kept.
std::string without_directories(const std::string &word) {
    if (word.find('/') == std::string::npos || word.find("://") != std::string::npos) return word;
    const auto eq = word.find('=');
    const auto slash = word.find('/');
    const std::string prefix = eq != std::string::npos && eq < slash ? word.substr(0, eq + 1) : "";
    return prefix + word.substr(word.rfind('/') + 1);
}

std::string scrub_command(const std::string &command) {
    std::istringstream in(command);
    std::string word, out;
    while (in >> word) out += (out.empty() ? "" : " ") + without_directories(word);
    return out;
}

bool plausible_submission_id(const std::string &s) {
    // The server's rule: 1..128 characters of [A-Za-z0-9._-]. No '/', so the
    // id is also a safe spool file name.
    if (s.empty() || s.size() > 128) return false;
    for (unsigned char c : s)
        if (!std::isalnum(c) && c != '-' && c != '_' && c != '.') return false;
    return true;
}

}  // namespace

std::string document_id(const json &doc) {
    // Two 64-bit FNV-1a lanes over the document as it is sent (nlohmann's
    // dump orders object keys, so the same document always gives the same
    // text); the second lane mixes in each byte's position.
    const std::string text = doc.dump();
    std::uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        a = (a ^ c) * 0x100000001b3ull;
        b = (b ^ (c + (i & 0xff))) * 0x9e3779b97f4a7c15ull;
    }
    char hex[33];
    std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
    return std::string(hex, 32);
}

Prepared prepare(const json &input, const std::string &where) {
    Prepared p;
    p.doc = gmreport::as_run(input, where);  // throws ReportError on anything invalid
    json &device = p.doc["device"];
    for (const char *field : kBoardFields) {
        if (device.contains(field)) {
            device.erase(field);
            p.changes.push_back(std::string("removed device.") + field + " (identifies one board, not the GPU model)");
        }
    }
    if (p.doc.contains("command") && p.doc["command"].is_string()) {
        const std::string before = p.doc["command"];
        const std::string after = scrub_command(before);
        if (after != before) {
            p.doc["command"] = after;
            p.changes.push_back("removed directories from the recorded command line");
        }
    }
    if (p.doc.contains("submission_id")) {
        const json &sid = p.doc["submission_id"];
        if (!sid.is_string() || !plausible_submission_id(sid.get<std::string>()))
            throw gmreport::ReportError(where + ": \"submission_id\" must be 1 to 128 letters, digits, '.', '-' or '_'");
        p.changes.push_back("kept the document's submission_id " + sid.get<std::string>());
    } else {
        p.doc["submission_id"] = document_id(p.doc);
        p.changes.push_back("added submission_id " + p.doc["submission_id"].get<std::string>() +
                            " (a digest of this document: a retry, or the same run sent again, is stored once)");
    }
    return p;
}

std::string dry_run_text(const Prepared &p, const SendOptions &opt) {
    std::string out;
    out += "gmlab-upload: dry run, nothing is sent.\n";
    out += "This document would be POSTed to " + results_endpoint(opt.server) +
           " and be public there. gmlab collects no host names, user names or serial numbers; before upload:\n";
    for (const auto &c : p.changes) out += "  - " + c + "\n";
    out += "The exact document:\n";
    out += p.doc.dump(2) + "\n";
    return out;
}

}  // namespace gmupload
