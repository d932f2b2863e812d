// What the server knows about uploads beyond their documents and points: each
// upload's moderation status (accepted, held by the outlier rule, hidden by a
// moderator), the moderation log, and the export of accepted points. Kept
// apart from Storage, in tables of its own on the same database. The
// headline figures (key_figures.hpp) are not here: they are stored as a point
// set of each upload (kFiguresSet in storage/storage.hpp), so that the storage's
// aggregates keep their distributions per model.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "storage/point_codec.hpp"

namespace gmserver {

// One headline figure of one upload.
struct FigureValue {
    std::string experiment, figure;
    double value = 0;
};

// An upload's standing. Uploads stored before figures were kept have no
// status row and count as accepted.
struct UploadStatus {
    std::string run_id, gpu_key, created_at;
    std::string status = "accepted";  // "accepted", "held" or "hidden"
    std::string reason;               // why it is held or hidden ("" when accepted)
};

struct ModerationEntry {
    std::string at, run_id, action, reason, actor;
};

// One exported point: its model, upload and time beside it.
struct ExportRow {
    std::string gpu_key, run_id, created_at, experiment, series, field;
    double x = 0, value = 0;
};

// The headline points of one stored point set as export rows, while visit
// returns true (go_on turns false when it has returned false); the caller
// has filled in the row's model, upload, time and experiment. False when the
// point set does not decode.
inline bool visit_export_rows(std::string_view point_set, ExportRow &row, bool &go_on,
                              const std::function<bool(const ExportRow &)> &visit) {
    return decode_points(point_set, row.run_id, row.experiment, [&](const PointRow &p) {
        if (!go_on) return;
        row.series = p.series;
        row.field = p.field;
        row.x = p.x;
        row.value = p.value;
        go_on = visit(row);
    });
}

class CrowdStore {
public:
    virtual ~CrowdStore() = default;
    // None: the upload was accepted when it was stored and never moderated.
    virtual std::optional<UploadStatus> status(const std::string &run_id) = 0;
    // Uploads of the model that are held or hidden (left out of aggregates).
    virtual std::unordered_set<std::string> not_accepted(const std::string &gpu_key) = 0;
    // Sets the status and logs the action with its reason (the moderator's,
    // which an accepted status does not keep); false when the upload is not in
    // runs (unknown).
    virtual bool moderate(const UploadStatus &status, const std::string &action, const std::string &reason, const std::string &actor,
                          const std::string &at) = 0;
    // An upload was deleted: its status goes, the log keeps a line.
    virtual void forget(const std::string &run_id, const std::string &reason, const std::string &actor, const std::string &at) = 0;
    virtual std::vector<ModerationEntry> log(std::size_t limit) = 0;
    virtual std::vector<UploadStatus> held(std::size_t limit) = 0;
    // Every point of accepted uploads, one experiment or all ("", the figure
    // sets left out: they are the summaries' values, not points), handed over
    // one at a time from a cursor on a connection of its own: constant memory,
    // and other requests are not held up while a client reads slowly. visit
    // returns false to stop.
    virtual void export_points(const std::string &experiment, const std::function<bool(const ExportRow &)> &visit) = 0;
};

// The same URL as open_storage (SQLite path or postgres:// URL); the tables
// are created if needed. Throws std::runtime_error with the reason.
std::unique_ptr<CrowdStore> open_crowd_store(const std::string &url);
std::unique_ptr<CrowdStore> open_sqlite_crowd_store(const std::string &path);
std::unique_ptr<CrowdStore> open_postgres_crowd_store(const std::string &url);

}  // namespace gmserver
