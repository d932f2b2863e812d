#include "web/api.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <optional>
#include <set>

#include <memory>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "gmlab.h"
#include "crowd/crowd.hpp"
#include "http/http_message.hpp"
#include "http/guards/request_deadline.hpp"
#include "http/router.hpp"
#include "storage/aggregate.hpp"
#include "storage/utc_now.hpp"
#include "upload/earlier_uploads.hpp"
#include "upload/sha256.hpp"
#include "web/crowd_routes.hpp"
#include "web/expensive_gate.hpp"
#include "web/page_bounds.hpp"
#include "web/quantiles_api.hpp"
#include "web/url.hpp"
#ifdef GM_HAVE_PAGES
#include "interrupt.hpp"
#include "web/pages.hpp"
#endif

namespace gmserver {
namespace {

using nlohmann::json;

void send_json(HttpResponse &res, int status, const json &body) {
    res.status = status;
    // replace: a message quoting hostile input must not make serialising throw.
    res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
}

// 128 bits from the operating system's generator, as 32 hex digits.
std::string random_hex128() {
    thread_local std::random_device rd;
    static const char *digits = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 4; ++i) {
        std::uint32_t w = rd();
        for (int j = 0; j < 8; ++j, w >>= 4) out.push_back(digits[w & 15]);
    }
    return out;
}

bool is_hex_id(const std::string &s) {
    if (s.size() != 32) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

// An upload must say it is JSON. A form on any web site can make a
// visitor's browser post text/plain, application/x-www-form-urlencoded or
// multipart/form-data here without asking; application/json it cannot send
// across origins without a CORS preflight, which this server never grants.
// Parameters (charset) are allowed; Content-Encoding is a header of its own.
bool is_json_content_type(const std::string &value) {
    std::string type = value.substr(0, value.find(';'));
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    while (!type.empty() && blank(type.back())) type.pop_back();
    std::size_t start = 0;
    while (start < type.size() && blank(type[start])) ++start;
    type = type.substr(start);
    std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return type == "application/json";
}

bool equal_constant_time(const std::string &a, const std::string &b) {
    if (a.size() != b.size()) return false;
    unsigned char d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d |= static_cast<unsigned char>(a[i] ^ b[i]);
    return d == 0;
}

json gpu_json(const GpuIdentity &g) {
    return {{"key", g.key},
            {"name", g.name},
            {"compute_capability", g.compute_capability},
            {"memory_bytes", g.memory_bytes},
            {"bus_width_bits", g.bus_width_bits},
            {"driver_version", g.driver_version},
            {"runtime_version", g.runtime_version}};
}

std::string number_text(double v) {
    std::ostringstream o;
    o.precision(17);
    o << v;
    return o.str();
}


// Experiment names of a stored document, in its order.
std::vector<std::string> experiments_of(const std::string &document) {
    // simdjson rather than a full parse: the GPU page asks for this on every
    // request, and a run document is hundreds of KiB.
    std::vector<std::string> names;
    simdjson::dom::parser parser;
    simdjson::dom::array results;
    if (parser.parse(document).at_key("results").get(results) != simdjson::SUCCESS) return names;
    for (simdjson::dom::element r : results) {
        std::string_view n;
        if (r.at_key("experiment").at_key("name").get(n) != simdjson::SUCCESS || n.empty()) continue;
        if (std::find(names.begin(), names.end(), n) == names.end()) names.emplace_back(n);
    }
    return names;
}

class Api {
public:
    Api(Storage &s, const ServerConfig &c, CrowdStore *crowd) : storage_(s), config_(c), earlier_(s) {
        if (crowd)
            crowd_ = std::make_unique<Crowd>(
                s, *crowd, c.moderator_token,
                [this](const std::string &k, const std::string &e) {
                    json agg = stored_aggregate(k, e);
                    bound_aggregate(agg, config_.shapes.get(), e);
                    return agg;
                },
                nullptr);
    }

    void install(Router &router) {
        router.set_filter([this](const HttpRequest &req, HttpResponse &res) { return limit(req, res); });
        // First: its /compare and /result pages take the place of those below.
        if (crowd_) {
            install_crowd_api(router, *crowd_);
            install_quantiles_api(router, *crowd_);  // gmlab check's per-model quantiles
#ifdef GM_HAVE_PAGES
            install_crowd_pages(router, *crowd_, config_.page_max_models);
#endif
        }
        router.post("/api/v1/results", [this](HttpRequest &req, HttpResponse &res) { post_result(req, res); });
        router.get(R"(/api/v1/results/([^/]+))", [this](const HttpRequest &req, HttpResponse &res) {
            get_result(req, res);
        });
        router.del(R"(/api/v1/results/([^/]+))", [this](const HttpRequest &req, HttpResponse &res) {
            delete_result(req, res);
        });
        router.get("/api/v1/gpus", [this](const HttpRequest &, HttpResponse &res) { get_gpus(res); });
        router.get(R"(/api/v1/gpus/([^/]+)/experiments/([^/]+))",
                   [this](const HttpRequest &req, HttpResponse &res) { get_experiment(req, res); });
        router.get("/api/v1/stats", [this](const HttpRequest &, HttpResponse &res) {
            send_json(res, 200, {{"results", storage_.count()}, {"pending", storage_.pending()}});
        });
#ifdef GM_HAVE_PAGES
        install_pages(router);
#endif
    }

private:
    // Token buckets per client: POST and DELETE draw on the write bucket,
    // everything else on the read bucket. The storage keeps them, so that
    // replicas on one database share them.
    bool limit(const HttpRequest &req, HttpResponse &res) {
        const std::string client =
            !req.client.empty() ? req.client
                                : client_address(req.remote_addr, req.has_header("X-Forwarded-For") ? req.header("X-Forwarded-For") : "",
                                                 config_.trusted_proxies);
        const bool write = req.method == "POST" || req.method == "DELETE";
        const bool expensive = !write && expensive_read(req);
        const double rate = write ? config_.write_rate : expensive ? config_.expensive_rate : config_.read_rate;
        const double burst = write ? config_.write_burst : expensive ? config_.expensive_burst : config_.read_burst;
        int retry = 1;
        try {
            // The expensive reads' bucket is the read bucket of a key of its own.
            if (rate <= 0 || storage_.take_token(expensive ? "expensive " + client : client, write, rate, burst, &retry)) return true;
        } catch (const std::exception &) {
            return true;  // the database is unreachable: the handler reports that itself
        }
        res.set_header("Retry-After", std::to_string(retry));
        send_error(res, 429, "rate_limited",
                   std::string("too many ") + (write ? "writes" : expensive ? "comparisons and exports" : "reads") + " from " + client +
                       "; retry after " + std::to_string(retry) + " s");
        return false;
    }

    // Reads whose cost grows with what is stored: a comparison (of two
    // uploads' documents, or of models' aggregates), an export, a result as CSV.
    static bool expensive_read(const HttpRequest &req) {
        if (req.path == "/compare") return !req.params.empty();
        if (req.path.rfind("/api/v1/export", 0) == 0) return true;
        return req.path.rfind("/api/v1/results/", 0) == 0 && req.has_param("format") && req.param("format") == "csv";
    }

    // Without --public-url, the URLs are made from the request's Host
    // header when it is a plain host[:port] (valid_host_header), else from
    // the address the request came in on: a client must not make the server
    // hand out a link to another site, or markup.
    std::string result_url(const HttpRequest &req, const std::string &id) const {
        std::string base = config_.public_url;
        if (base.empty()) {
            const std::string host = req.header("Host");
            if (valid_host_header(host)) base = "http://" + host;
            else if (!req.local_addr.empty()) base = "http://" + req.local_addr;
        }
        while (!base.empty() && base.back() == '/') base.pop_back();
        return base + "/result/" + id;
    }

    // The page of the GPU model an upload was counted for.
    std::string gpu_url(const HttpRequest &req, const std::string &key) const {
        std::string base = result_url(req, "");
        base.resize(base.size() - std::string("/result/").size());
        return base + "/gpu/" + url_encode(key);
    }

    void post_result(HttpRequest &req, HttpResponse &res) {
        if (!is_json_content_type(req.header("Content-Type"))) {
            const std::string sent = req.header("Content-Type");
            return send_error(res, 415, "unsupported_media_type",
                              "an upload needs the header Content-Type: application/json (" +
                                  (req.has_header("Content-Type") ? "it was " + sent.substr(0, 100) : std::string("none was sent")) +
                                  ")");
        }
        // The transport has read the whole body and undone its
        // Content-Encoding, within the same limit (a gzip bomb is a 413 there).
        if (req.body.size() > config_.max_body_bytes) {
            res.close = true;
            return send_error(res, 413, "too_large",
                              "the body is larger than " + std::to_string(config_.max_body_bytes) + " bytes");
        }
        std::string body = std::move(req.body);
        // The parts of the document the crowd judges are read from the
        // validator's own parse of it.
        json parts;
        ValidationLimits limits = config_.limits;
        limits.shapes = config_.shapes;  // uploads only: a stored document is read as it was accepted
        ValidatedUpload v = validate_upload(std::move(body), limits, [&](const simdjson::dom::element &root) {
            if (crowd_) parts = judged_parts(root);
        });
        if (!v.ok) return send_error(res, 422, v.error_code, v.error_message);
        if (const std::string problem = earlier_.judge(v.gpu.key, v.facts); !problem.empty())
            return send_error(res, 422, "implausible", problem);

        // The client's id is checked and logged, but the run is stored under
        // the server's digest of what it measured (upload/run_identity.hpp):
        // the same run is stored once whatever id it comes with, and no id
        // can claim the place of another document.
        std::string client_id = v.submission_id;
        for (const char *h : {"X-Submission-Id", "Idempotency-Key"}) {
            if (!client_id.empty() || !req.has_header(h)) continue;
            const std::string s = req.header(h);
            if (!valid_submission_id(s))
                return send_error(res, 400, "invalid_submission_id", std::string(h) + ": must be 1..128 characters of [A-Za-z0-9._-]");
            client_id = s;
        }
        StoredRun run;
        run.submission_id = v.run_identity;
        run.id = random_hex128();
        const std::string token = random_hex128();
        run.delete_token_hash = sha256_hex(token);
        run.created_at = utc_now();
        run.gpu = std::move(v.gpu);
        run.document = std::move(v.document);
        // A client's gzip or zstd is stored as it came when it compresses
        // well: no second compression. Anything else is compressed by the storage.
        // Not for a document the validator rewrote (an older version's figures
        // dropped): the client's compressed bytes are of the body as sent.
        if (!v.rewritten && !req.compressed_body.empty() &&
            req.compressed_body.size() * kStoredCompressedRatio <= run.document.size())
            run.document_compressed = std::move(req.compressed_body);
        // The headline figures are judged before the upload is stored (so that
        // the model's values are those of the other uploads) and stored with
        // its points, as its figure set, in the same transaction.
        std::vector<FigureValue> figures;
        UploadStatus status;
        if (crowd_) {
            figures = upload_figures(parts);
            status = crowd_->judge(run, figures, health_problems(parts));
            for (PointRow &r : figure_rows(run.id, figures)) v.points.push_back(std::move(r));
        }

        StoredRun existing;
        const auto stored_from = std::chrono::steady_clock::now();
        const InsertOutcome outcome = storage_.insert(run, v.points, &existing);
        if (outcome == InsertOutcome::Inserted && crowd_) crowd_->admitted(status, figures, stored_from);
        res.submission_id = client_id.empty() ? run.submission_id : client_id;
        res.outcome = outcome == InsertOutcome::DuplicateSubmission ? "duplicate" : status.status == "held" ? "held" : "stored";
        if (outcome == InsertOutcome::DuplicateSubmission) {
            return send_json(res, 200,
                             {{"id", existing.id},
                              {"url", result_url(req, existing.id)},
                              {"gpu_url", gpu_url(req, existing.gpu.key)},
                              {"duplicate", true},
                              {"message", "this run is already stored (the same measurements of the same GPU model at the same "
                                          "time); its delete token was given with the first upload"}});
        }
        send_json(res, 201, {{"id", run.id},
                             {"url", result_url(req, run.id)},
                             {"gpu_url", gpu_url(req, run.gpu.key)},
                             {"delete_token", token},
                             {"duplicate", false},
                             {"status", status.status},
                             {"reason", status.reason}});
    }

    void get_result(const HttpRequest &req, HttpResponse &res) {
        const std::string id = req.matches[1];
        const std::string format = req.has_param("format") ? req.param("format") : "";
        if (!format.empty() && format != "json" && format != "csv" && format != "document")
            return send_error(res, 400, "bad_format", "format must be json, document or csv");
        std::optional<StoredRun> run;
        if (is_hex_id(id)) run = storage_.get(id);
        if (!run) return send_error(res, 404, "not_found", "no result with this id");
        if (format == "document") {
            // The run document exactly as stored, for `gmlab report` and `gmlab compare`.
            res.set_header("Content-Disposition", "attachment; filename=\"gmlab-" + run->id + ".json\"");
            res.set_content(run->document, "application/json");
            return;
        }
        if (format == "csv") {
            // The stored document passed validation; one stored before today's
            // rules may fail them, and then says so rather than being empty.
            ValidatedUpload v = validate_upload(run->document, config_.limits);
            if (!v.ok)
                return send_error(res, 422, v.error_code,
                                  "this upload was stored before the rules it now fails, so its points are not exported: " +
                                      v.error_message);
            std::string csv = "experiment,series,field,x,value\n";
            for (const PointRow &p : v.points)
                csv += csv_cell(p.experiment) + "," + csv_cell(p.series) + "," + csv_cell(p.field) + "," +
                       number_text(p.x) + "," + number_text(p.value) + "\n";
            res.set_header("Content-Disposition", "attachment; filename=\"gmlab-" + run->id + ".csv\"");
            res.set_content(csv, "text/csv; charset=utf-8");
            return;
        }
        json out = {{"id", run->id},
                    {"url", result_url(req, run->id)},
                    {"created_at", run->created_at},
                    {"gpu", gpu_json(run->gpu)},
                    {"document", json::parse(run->document)}};
        send_json(res, 200, out);
    }

    void delete_result(const HttpRequest &req, HttpResponse &res) {
        const std::string id = req.matches[1];
        const std::string auth = req.has_header("Authorization") ? req.header("Authorization") : "";
        if (auth.rfind("Bearer ", 0) != 0 || auth.size() <= 7)
            return send_error(res, 401, "unauthorized", "send Authorization: Bearer <delete token>");
        const std::string token = auth.substr(7);
        std::optional<StoredRun> run;
        if (is_hex_id(id)) run = storage_.get(id);
        if (!run) return send_error(res, 404, "not_found", "no result with this id");
        const bool admin = !config_.admin_token.empty() && equal_constant_time(token, config_.admin_token);
        if (!admin && !equal_constant_time(sha256_hex(token), run->delete_token_hash))
            return send_error(res, 403, "forbidden", "the token does not match this result");
        if (!storage_.remove(id)) return send_error(res, 404, "not_found", "no result with this id");
        if (crowd_) crowd_->deleted(*run, admin ? "admin" : "owner", "deleted with the " + std::string(admin ? "admin" : "delete") + " token");
        send_json(res, 200, {{"id", id}, {"deleted", true}});
    }

    void get_gpus(HttpResponse &res) {
        json list = json::array();
        for (const GpuCount &g : storage_.gpus()) {
            json j = gpu_json(g.gpu);
            j["uploads"] = g.uploads;
            j["url"] = "/gpu/" + g.gpu.key;
            list.push_back(std::move(j));
        }
        send_json(res, 200, {{"gpus", std::move(list)}});
    }

    // A GPU model's distribution for one experiment, with "uploads" added;
    // null when there are no points. The storage keeps it up to date as
    // uploads are stored and deleted (by any process on the database): this
    // reads it, and never aggregates the model's uploads.
    json stored_aggregate(const std::string &key, const std::string &name) {
        const std::optional<std::string> text = storage_.aggregate(key, name);
        return text ? json::parse(*text) : json();
    }

    void get_experiment(const HttpRequest &req, HttpResponse &res) {
        const std::string key = req.matches[1], name = req.matches[2];
        json out = stored_aggregate(key, name);
        if (out.is_null()) return send_error(res, 404, "not_found", "no points of this experiment for this GPU model");
        out["gpu"] = key;
        out["experiment"] = name;
        send_json(res, 200, out);
    }

#ifdef GM_HAVE_PAGES
    static void send_page(HttpResponse &res, int status, const std::string &html) {
        res.status = status;
        res.set_content(html, "text/html; charset=utf-8");
    }

    std::optional<GpuIdentity> find_gpu(const std::string &key) {
        for (const GpuCount &g : storage_.gpus())
            if (g.gpu.key == key) return g.gpu;
        return std::nullopt;
    }

    // Every experiment any upload of the model measured: the library's own,
    // in the standard suite's order, then any other the latest upload has
    // (a newer release's). Not the latest upload's alone, which a partial run
    // (one experiment at another size) would narrow the page to.
    std::vector<std::pair<std::string, json>> gpu_experiments(const std::string &key) {
        std::vector<std::pair<std::string, json>> out;
        std::vector<std::string> names;
        for (std::size_t i = 0; i < gm_experiment_count(); ++i)
            if (const char *n = gm_experiment_name(i)) names.emplace_back(n);
        const std::vector<StoredRun> latest = storage_.runs_of(key, 1);
        if (latest.empty()) return out;
        // Where the server accepts only its library's experiments, a name
        // stored before that (an invented one) is not shown.
        if (!config_.shapes)
            if (const std::optional<StoredRun> run = storage_.get(latest.front().id))
                for (const std::string &n : experiments_of(run->document))
                    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
        const std::vector<std::optional<std::string>> aggs = storage_.aggregates(key, names);
        for (std::size_t i = 0; i < names.size() && i < aggs.size(); ++i)
            if (aggs[i]) {
                json agg = json::parse(*aggs[i]);
                bound_aggregate(agg, config_.shapes.get(), names[i]);
                out.emplace_back(names[i], std::move(agg));
            }
        return out;
    }

    void install_pages(Router &router) {
        router.get("/", [this](const HttpRequest &, HttpResponse &res) {
            std::vector<GpuCount> gpus = storage_.gpus();
            const std::size_t more = gpus.size() > config_.page_max_models ? gpus.size() - config_.page_max_models : 0;
            if (more) gpus.resize(config_.page_max_models);
            std::string page = page_home(gpus);
            if (more) page.insert(std::min(page.size(), page.rfind("</body>")), more_models_note(more, gpus.size()));
            send_page(res, 200, page);
        });
        router.get(R"(/gpu/([^/]+))", [this](const HttpRequest &req, HttpResponse &res) {
            const std::string key = req.matches[1];
            const std::optional<GpuIdentity> gpu = find_gpu(key);
            if (!gpu) return send_page(res, 404, page_error(404, "No uploads for GPU model " + key));
            send_page(res, 200, page_gpu(*gpu, gpu_experiments(key), storage_.runs_of(key, 20)));
        });
        router.get(R"(/result/([^/]+))", [this](const HttpRequest &req, HttpResponse &res) {
            const std::string id = req.matches[1];
            std::optional<StoredRun> run;
            if (is_hex_id(id)) run = storage_.get(id);
            if (!run) return send_page(res, 404, page_error(404, "No result " + id));
            send_page(res, 200, page_result(*run));
        });
        router.get("/compare", [this](const HttpRequest &req, HttpResponse &res) {
            // A comparison takes a slot of the few that may run at once (the picker does not).
            std::optional<ExpensiveGate::Slot> slot;
            if (!req.params.empty() && !slot.emplace(res).ok()) return;
            if (req.has_param("a") && req.has_param("b")) {
                const std::string a = req.param("a"), b = req.param("b");
                std::optional<StoredRun> ra, rb;
                if (is_hex_id(a)) ra = storage_.get(a);
                if (is_hex_id(b)) rb = storage_.get(b);
                if (!ra || !rb) return send_page(res, 404, page_error(404, "No result " + (ra ? b : a)));
                return send_page(res, 200, page_compare_runs(*ra, *rb));
            }
            if (req.has_param("gpu_a") && req.has_param("gpu_b")) {
                const std::string a = req.param("gpu_a"), b = req.param("gpu_b");
                const std::optional<GpuIdentity> ga = find_gpu(a), gb = find_gpu(b);
                if (!ga || !gb) return send_page(res, 404, page_error(404, "No uploads for GPU model " + (ga ? b : a)));
                json agg_a = json::object(), agg_b = json::object();
                for (auto &e : gpu_experiments(a)) agg_a[e.first] = std::move(e.second);
                for (auto &e : gpu_experiments(b)) agg_b[e.first] = std::move(e.second);
                return send_page(res, 200, page_compare_gpus(*ga, agg_a, *gb, agg_b));
            }
            send_page(res, 400, page_error(400, "Compare needs ?a=ID&b=ID or ?gpu_a=KEY&gpu_b=KEY"));
        });
    }
#endif

    Storage &storage_;
    const ServerConfig config_;
    EarlierUploads earlier_;
    std::unique_ptr<Crowd> crowd_;
};

}  // namespace

void install_routes(Router &router, Storage &storage, const ServerConfig &config, CrowdStore *crowd) {
#ifdef GM_HAVE_PAGES
    // The report's loops (a comparison, a result's page) stop at a request's deadline.
    gmreport::set_interrupt_check(&check_request_deadline);
#endif
    ExpensiveGate::set_limit(config.max_expensive_at_once);
    // The Api object lives as long as the process: the server's handlers refer to it.
    static std::unique_ptr<Api> api;
    api = std::make_unique<Api>(storage, config, crowd);
    api->install(router);
}

}  // namespace gmserver
