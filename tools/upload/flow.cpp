// What gmlab-upload and `gmlab run --upload` do with a prepared document:
// send it, report the outcome, and spool it when the server is unreachable.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "document.hpp"
#include "upload.hpp"

namespace gmupload {

using nlohmann::json;

namespace {

void print_accepted(const SendResult &r, std::ostream &out) {
    out << "uploaded: " << (r.url.empty() ? r.id : r.url) << "\n";
    if (!r.gpu_url.empty()) out << "GPU model: " << r.gpu_url << "\n";
    out << "id: " << r.id << "\n";
    if (!r.delete_token.empty())
        out << "delete token: " << r.delete_token << "  (keep it: it is the only way to delete this upload)\n";
    else
        out << "delete token: none returned (the server already held this submission; use the token from its first upload)\n";
}

// A document the server refused as malformed or too large will be refused
// again; other 4xx (not found, forbidden) may be a wrong URL and are kept.
bool rejected_as_invalid(long status) { return status == 400 || status == 413 || status == 415 || status == 422; }

}  // namespace

Delivery deliver(const Prepared &p, const SendOptions &opt, const std::string &spool_dir, std::ostream &out,
                 std::ostream &err) {
    Delivery d;
    d.sent = send(p.doc.dump(), opt);
    const SendResult &r = d.sent;
    if (r.kind == SendResult::Accepted) {
        print_accepted(r, out);
        d.code = kOk;
        return d;
    }
    if (r.kind == SendResult::Rejected) {
        err << "gmlab-upload: rejected by the server: " << r.message << "\n";
        d.code = kRejected;
        return d;
    }
    err << "gmlab-upload: the server is unavailable after " << r.attempts << " attempt" << (r.attempts == 1 ? "" : "s")
        << ": " << r.message << "\n";
    d.code = kUnavailable;
    try {
        d.spooled = spool_write(spool_dir, p.doc);
        err << "gmlab-upload: kept in the spool as " << d.spooled << "; send it later with gmlab-upload --flush --server "
            << opt.server << "\n";
    } catch (const std::exception &e) {
        d.spool_error = e.what();
        err << "gmlab-upload: and it could not be spooled: " << e.what() << "\n";
    }
    return d;
}

int upload(const Prepared &p, const SendOptions &opt, const std::string &spool_dir, std::ostream &out,
           std::ostream &err) {
    return deliver(p, opt, spool_dir, out, err).code;
}

int flush(const SendOptions &opt, const std::string &spool_dir, std::ostream &out, std::ostream &err) {
    const auto files = spool_list(spool_dir);
    if (files.empty()) {
        out << "gmlab-upload: the spool " << spool_dir << " is empty\n";
        return kOk;
    }
    int sent = 0, rejected = 0, damaged = 0;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string &path = files[i];
        std::ifstream f(path, std::ios::binary);
        std::stringstream ss;
        ss << f.rdbuf();
        const json doc = json::parse(ss.str(), nullptr, false);
        // A spooled file was prepared already: only check it is still whole and
        // valid, and keep its submission_id so the server can recognise it.
        try {
            if (doc.is_discarded() || !doc.is_object() || !doc.contains("submission_id"))
                throw gmreport::ReportError(path + ": damaged (not a prepared upload)");
            gmreport::as_run(doc, path);
        } catch (const gmreport::ReportError &e) {
            err << "gmlab-upload: " << e.what() << "; left in the spool\n";
            ++damaged;
            continue;
        }
        out << "gmlab-upload: sending " << path << "\n";
        const SendResult r = send(doc.dump(), opt);
        std::error_code ec;
        if (r.kind == SendResult::Accepted) {
            print_accepted(r, out);
            std::filesystem::remove(path, ec);
            ++sent;
        } else if (r.kind == SendResult::Rejected) {
            err << "gmlab-upload: rejected by the server: " << r.message;
            if (rejected_as_invalid(r.http_status)) {
                std::filesystem::remove(path, ec);
                err << "; removed from the spool\n";
            } else {
                err << "; left in the spool\n";
            }
            ++rejected;
        } else {
            err << "gmlab-upload: the server is unavailable: " << r.message << "; " << files.size() - i
                << " document(s) left in the spool\n";
            return kUnavailable;
        }
    }
    out << "gmlab-upload: " << sent << " sent, " << rejected << " rejected, " << damaged << " damaged\n";
    return rejected ? kRejected : damaged ? kInvalid : kOk;
}

}  // namespace gmupload
