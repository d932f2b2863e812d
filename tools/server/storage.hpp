// Where gmlab-server keeps uploaded runs: one interface, an SQLite and a
// PostgreSQL implementation. Every method is safe to call from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gmserver {

// The normalised identity of a GPU: uploads of the same model compare.
struct GpuIdentity {
    std::string key;          // normalised: lower-case name, compute capability, memory GiB, bus width
    std::string name;         // as the device reported it
    std::string compute_capability;
    std::uint64_t memory_bytes = 0;
    int bus_width_bits = 0;
    std::string driver_version, runtime_version;  // context, not identity
};

struct StoredRun {
    std::string id;                    // 32 hex digits from 128 random bits
    std::string submission_id;         // client-chosen, makes retries idempotent ("" if none)
    std::string delete_token_hash;     // hex SHA-256 of the delete token; the token itself is never stored
    std::string created_at;            // UTC ISO 8601
    GpuIdentity gpu;
    std::string document;              // the validated gmlab.run/1 document (JSON text)
};

// One point of one upload, kept apart from the document so that per-GPU
// distributions are computed without parsing documents.
struct PointRow {
    std::string run_id;
    std::string experiment, series, field;  // field: the series' headline (y.field)
    double x = 0, value = 0;
};

struct GpuCount {
    GpuIdentity gpu;  // of the most recent upload of this model
    std::uint64_t uploads = 0;
};

enum class InsertOutcome { Inserted, DuplicateSubmission };

class Storage {
public:
    virtual ~Storage() = default;
    // Stores the run and its points in one transaction. A run whose
    // submission_id is already stored is not stored again: DuplicateSubmission,
    // and *existing receives the stored run (its id and token hash).
    virtual InsertOutcome insert(const StoredRun &run, const std::vector<PointRow> &points, StoredRun *existing) = 0;
    virtual std::optional<StoredRun> get(const std::string &id) = 0;
    // True when a run was deleted (with its points).
    virtual bool remove(const std::string &id) = 0;
    virtual std::vector<GpuCount> gpus() = 0;
    // Every point of every upload of the GPU model for one experiment.
    virtual std::vector<PointRow> points(const std::string &gpu_key, const std::string &experiment) = 0;
    // The same rows handed over one at a time, without holding them all (a
    // popular model has millions); the default goes through points().
    virtual void for_each_point(const std::string &gpu_key, const std::string &experiment,
                                const std::function<void(const PointRow &)> &visit) {
        for (const PointRow &r : points(gpu_key, experiment)) visit(r);
    }
    // Ids and creation times of a GPU model's uploads, newest first.
    virtual std::vector<StoredRun> runs_of(const std::string &gpu_key, std::size_t limit) = 0;
    virtual std::uint64_t count() = 0;
};

// "sqlite:PATH" or a path: SQLite in WAL mode. "postgres://..." or
// "postgresql://...": PostgreSQL through libpq. Creates the tables if needed.
// Throws std::runtime_error with the reason.
std::unique_ptr<Storage> open_storage(const std::string &url);

}  // namespace gmserver
