// JSON routes of the view across models, the export and moderation.
#include "web/crowd_routes.hpp"

#include <charconv>
#include <chrono>
#include <ctime>
#include <memory>
#include <mutex>
#include <set>

#include "http/http_message.hpp"
#include "storage/utc_now.hpp"

namespace gmserver {

using nlohmann::json;

namespace {

void send_json(HttpResponse &res, int status, const json &body) {
    res.status = status;
    res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

bool is_hex_id(const std::string &s) {
    if (s.size() != 32) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

// Shortest text that reads back as the same double.
void append_number(std::string &out, double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

std::string json_string(const std::string &s) { return json(s).dump(-1, ' ', false, json::error_handler_t::replace); }

// Exports run on a worker each for as long as the client reads (at the
// transport's minimum send rate, or it is cut off): at most this many at
// once, so that pages and uploads keep workers, and at most one per client
// address, so that one client cannot keep the others waiting.
constexpr int kMaxConcurrentExports = 2;
std::mutex exports_mu;
std::set<std::string> exporting;  // client addresses with an export running

// Takes an export slot for the client: "" when taken, else the error code.
std::string take_export_slot(const std::string &client) {
    std::lock_guard<std::mutex> lock(exports_mu);
    if (exporting.count(client)) return "export_running";
    if (static_cast<int>(exporting.size()) >= kMaxConcurrentExports) return "busy";
    exporting.insert(client);
    return "";
}

void give_export_slot(const std::string &client) {
    std::lock_guard<std::mutex> lock(exports_mu);
    exporting.erase(client);
}

}  // namespace

class CrowdApi {
public:
    explicit CrowdApi(Crowd &c) : c_(c) {}

    void experiments(HttpResponse &res) {
        json list = json::array();
        for (const std::string &n : Crowd::experiment_names())
            list.push_back({{"name", n}, {"url", "/experiment/" + n}, {"api", "/api/v1/experiments/" + n}});
        send_json(res, 200, {{"experiments", std::move(list)}});
    }

    void unknown_experiment(HttpResponse &res, const std::string &name) {
        res.status = 404;
        send_json(res, 404, {{"code", "not_found"}, {"message", "no experiment named " + name}, {"valid", Crowd::experiment_names()}});
    }

    void experiment(const HttpRequest &req, HttpResponse &res) {
        const std::string name = req.matches[1];
        if (!Crowd::known_experiment(name)) return unknown_experiment(res, name);
        send_json(res, 200, c_.experiment_table(name));
    }

    void standing(const HttpRequest &req, HttpResponse &res) {
        const std::string id = req.matches[1];
        std::optional<StoredRun> run;
        if (is_hex_id(id)) run = c_.storage().get(id);
        if (!run) return send_error(res, 404, "not_found", "no result with this id");
        send_json(res, 200, c_.standing(*run));
    }

    // Every accepted point, streamed: CSV with a header line, or one JSON
    // object per line. Columns: gpu, upload, uploaded_at, experiment, series,
    // field, x, value.
    void export_points(const HttpRequest &req, HttpResponse &res) {
        const std::string format = req.has_param("format") ? req.param("format") : "csv";
        if (format != "csv" && format != "jsonl") return send_error(res, 400, "bad_format", "format must be csv or jsonl");
        std::string experiment = req.has_param("experiment") ? req.param("experiment") : "all";
        if (experiment != "all" && !Crowd::known_experiment(experiment)) return unknown_experiment(res, experiment);
        if (experiment == "all") experiment.clear();
        const std::string client = req.client.empty() ? req.remote_addr : req.client;
        const std::string refused = take_export_slot(client);
        if (refused == "export_running") {
            res.set_header("Retry-After", "10");
            return send_error(res, 429, "export_running",
                              "an export for " + client + " is running already; one at a time per address");
        }
        if (!refused.empty()) {
            res.set_header("Retry-After", "10");
            return send_error(res, 503, "busy", "too many exports are running; retry in a while");
        }
        const bool csv = format == "csv";
        res.status = 200;
        res.set_header("Content-Type", csv ? "text/csv; charset=utf-8" : "application/x-ndjson");
        res.set_header("Content-Disposition", std::string("attachment; filename=\"gmlab-") + (experiment.empty() ? "all" : experiment) +
                                                  (csv ? ".csv\"" : ".jsonl\""));
        CrowdStore &store = c_.store();
        // The slot is given back when the stream ends, however it ends; and if
        // the transport never runs it (the client went away), when the
        // response holding it is destroyed.
        auto slot = std::shared_ptr<void>(nullptr, [client](void *) { give_export_slot(client); });
        res.stream = [&store, experiment, csv, slot](const HttpResponse::Writer &write) mutable {
            struct Release {
                std::shared_ptr<void> &slot;
                ~Release() { slot.reset(); }
            } release{slot};
            constexpr std::size_t kChunk = 64 * 1024;
            std::string buf;
            buf.reserve(kChunk + 4096);
            if (csv) buf = "gpu,upload,uploaded_at,experiment,series,field,x,value\n";
            // The text columns repeat from row to row: each is formatted once per change.
            std::string last_run, last_series, run_cells, series_cells;
            bool alive = true;
            store.export_points(experiment, [&](const ExportRow &r) {
                if (r.run_id != last_run || (!csv && r.series != last_series) || run_cells.empty()) {
                    last_run = r.run_id;
                    if (csv) run_cells = csv_cell(r.gpu_key) + "," + csv_cell(r.run_id) + "," + csv_cell(r.created_at) + "," + csv_cell(r.experiment) + ",";
                    else run_cells = "{\"gpu\":" + json_string(r.gpu_key) + ",\"upload\":" + json_string(r.run_id) + ",\"uploaded_at\":" + json_string(r.created_at) +
                                     ",\"experiment\":" + json_string(r.experiment);
                    last_series.clear();
                }
                if (r.series != last_series || series_cells.empty()) {
                    last_series = r.series;
                    series_cells = csv ? csv_cell(r.series) + "," + csv_cell(r.field) + ","
                                       : ",\"series\":" + json_string(r.series) + ",\"field\":" + json_string(r.field) + ",\"x\":";
                }
                buf += run_cells;
                buf += series_cells;
                append_number(buf, r.x);
                buf += csv ? "," : ",\"value\":";
                append_number(buf, r.value);
                buf += csv ? "\n" : "}\n";
                if (buf.size() >= kChunk) {
                    alive = write(buf);
                    buf.clear();
                }
                return alive;
            });
            if (alive && !buf.empty()) write(buf);
        };
    }

    // Moderation: Authorization: Bearer <moderator token from the config file>.
    bool authorised(const HttpRequest &req, HttpResponse &res) {
        const std::string auth = req.header("Authorization");
        if (auth.rfind("Bearer ", 0) != 0 || auth.size() <= 7) {
            send_error(res, 401, "unauthorized", "send Authorization: Bearer <moderator token>");
            return false;
        }
        if (!moderator_authorised(auth, c_.moderator_token_)) {
            send_error(res, 403, "forbidden", "the token is not the moderator token");
            return false;
        }
        return true;
    }

    void moderate(const HttpRequest &req, HttpResponse &res) {
        if (!authorised(req, res)) return;
        const std::string id = req.matches[1];
        const json body = json::parse(req.body, nullptr, false);
        if (!body.is_object() || !body.contains("action") || !body["action"].is_string())
            return send_error(res, 400, "bad_request", "send {\"action\": \"accept\"|\"hide\"|\"hold\"|\"delete\", \"reason\": \"...\"}");
        const std::string action = body["action"];
        const std::string reason = body.contains("reason") && body["reason"].is_string() ? body["reason"].get<std::string>() : "";
        if (action != "accept" && action != "hide" && action != "hold" && action != "delete")
            return send_error(res, 400, "bad_action", "action must be accept, hide, hold or delete");
        if (reason.empty() || reason.size() > 2000) return send_error(res, 400, "bad_reason", "a reason of 1..2000 bytes is required");
        std::optional<StoredRun> run;
        if (is_hex_id(id)) run = c_.storage().get(id);
        if (!run) return send_error(res, 404, "not_found", "no result with this id");
        if (action == "delete") {
            c_.storage().remove(id);
            c_.deleted(*run, "moderator", reason);
            return send_json(res, 200, {{"id", id}, {"status", "deleted"}});
        }
        UploadStatus st;
        st.run_id = run->id;
        st.gpu_key = run->gpu.key;
        st.created_at = run->created_at;
        st.status = action == "accept" ? "accepted" : action == "hide" ? "hidden" : "held";
        st.reason = action == "accept" ? "" : reason;
        if (!c_.store().moderate(st, action, reason, "moderator", utc_now())) return send_error(res, 404, "not_found", "no result with this id");
        // In or out of the model's aggregates (and counts) as well.
        c_.storage().set_counted(id, st.status == "accepted");
        c_.bump(run->gpu.key);
        send_json(res, 200, {{"id", id}, {"status", st.status}, {"reason", reason}});
    }

    void log(const HttpRequest &req, HttpResponse &res) {
        if (!authorised(req, res)) return;
        json out = json::array();
        for (const ModerationEntry &e : c_.store().log(500))
            out.push_back({{"at", e.at}, {"id", e.run_id}, {"action", e.action}, {"reason", e.reason}, {"actor", e.actor}});
        send_json(res, 200, {{"log", std::move(out)}});
    }

    void held(const HttpRequest &req, HttpResponse &res) {
        if (!authorised(req, res)) return;
        json out = json::array();
        for (const UploadStatus &s : c_.store().held(500))
            out.push_back({{"id", s.run_id}, {"gpu", s.gpu_key}, {"created_at", s.created_at}, {"reason", s.reason}, {"url", "/result/" + s.run_id}});
        send_json(res, 200, {{"held", std::move(out)}});
    }

private:
    Crowd &c_;
};

void install_crowd_api(Router &router, Crowd &crowd) {
    static std::unique_ptr<CrowdApi> api;  // lives as long as the routes that refer to it
    api = std::make_unique<CrowdApi>(crowd);
    CrowdApi *a = api.get();
    router.get("/api/v1/experiments", [a](const HttpRequest &, HttpResponse &res) { a->experiments(res); });
    router.get(R"(/api/v1/experiments/([^/]+))", [a](HttpRequest &req, HttpResponse &res) { a->experiment(req, res); });
    router.get(R"(/api/v1/results/([^/]+)/standing)", [a](HttpRequest &req, HttpResponse &res) { a->standing(req, res); });
    router.get("/api/v1/export", [a](HttpRequest &req, HttpResponse &res) { a->export_points(req, res); });
    router.post(R"(/api/v1/moderation/([^/]+))", [a](HttpRequest &req, HttpResponse &res) { a->moderate(req, res); });
    router.get("/api/v1/moderation/log", [a](HttpRequest &req, HttpResponse &res) { a->log(req, res); });
    router.get("/api/v1/moderation/held", [a](HttpRequest &req, HttpResponse &res) { a->held(req, res); });
}

}  // namespace gmserver
