// Where gmlab-server keeps uploaded runs: one interface, an SQLite and a
// PostgreSQL implementation. Every method is safe to call from several threads.
#pragma once

#include <chrono>
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
    // On insert only: the same document as the client compressed it (one
    // plain gzip member or one zstd frame that declares its size), which the
    // storage keeps as it is instead of compressing `document` again (empty:
    // the storage compresses it). Reads return `document` and leave this empty.
    std::string document_compressed;
};

// A client's compressed body is stored as it came only when it is at most
// 1/kStoredCompressedRatio of the document: a body that barely compresses
// (gzip "stored" blocks, zstd raw blocks) is compressed by the storage rather
// than kept at full size.
constexpr std::size_t kStoredCompressedRatio = 3;

// One point of one upload, kept apart from the document so that per-GPU
// distributions are maintained without parsing documents.
struct PointRow {
    std::string run_id;
    std::string experiment, series, field;  // field: the series' headline (y.field)
    double x = 0, value = 0;
};

// The headline figures of an upload (crowd/key_figures.hpp) are stored beside its
// points as a point set of this pseudo-experiment (not a valid experiment
// name): series "<experiment>/<figure>", field "figure", x 0. The aggregates
// then keep every model's figure distributions up to date as uploads are
// stored, moderated and deleted, and the views across models read one row
// per model instead of every upload's figures.
inline const std::string kFiguresSet = "#figures";

struct GpuCount {
    GpuIdentity gpu;  // of the most recent upload of this model
    std::uint64_t uploads = 0;
};

enum class InsertOutcome { Inserted, DuplicateSubmission };

// Uploads waiting for the refresher (of every process on the database).
struct QueueState {
    std::uint64_t backlog = 0;
    std::string oldest;  // created_at of the oldest of them ("" when none)
};

struct StorageOptions {
    // Fold queued uploads into the stored aggregates on a thread of the
    // storage's own (the server). Off: only refresh() folds them (tests, the
    // bench's fill tool).
    bool background_refresh = true;
};

// A reader of an aggregate merges at most this many of the model's queued
// uploads into the stored aggregate (so that an uploader sees its upload at
// once); beyond that the answer lags until the refresher has caught up. The
// merge reads each queued upload's points: with 256, a GPU page right after a
// burst of uploads took 350 ms on PostgreSQL (bench/server_load.py).
constexpr std::size_t kMaxMergedPending = 64;

// The background refresher folds a second after an insert of its process,
// and polls every second for uploads stored by other processes. A fold
// rewrites the stored histograms of the model's experiments (megabytes for a
// popular model) whatever the number of uploads it folds in: under a steady
// stream of uploads, folding at most about once a second bounds that write
// load to one rewrite per model per second. Readers merge the queued uploads
// meanwhile.
constexpr std::chrono::milliseconds kRefreshGather{1000}, kRefreshPoll{1000};

class Storage {
public:
    virtual ~Storage() = default;
    // Stores the run and its points in one transaction. A run whose
    // submission_id is already stored is not stored again: DuplicateSubmission,
    // and *existing receives the stored run (its id and token hash). The
    // points are stored under run.id; their own run_id is not read.
    virtual InsertOutcome insert(const StoredRun &run, const std::vector<PointRow> &points, StoredRun *existing) = 0;
    virtual std::optional<StoredRun> get(const std::string &id) = 0;
    // True when a run was deleted (with its points).
    virtual bool remove(const std::string &id) = 0;
    virtual std::vector<GpuCount> gpus() = 0;
    // Every point of every upload of the GPU model for one experiment (tests
    // and rebuilds; pages and the API read aggregate()).
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

    // A token bucket per (client, write): refills at `rate` per second up to
    // `burst` (at least 1). True when a token was taken; false when the bucket
    // is empty, with *retry_after_s the whole seconds until one is back. On
    // PostgreSQL the buckets are rows of the database, shared by every server
    // process on it; an SQLite file is served by one process, which keeps
    // them in memory.
    virtual bool take_token(const std::string &client, bool write, double rate, double burst, int *retry_after_s) = 0;

    // The aggregate of a GPU model's uploads for one experiment, as the API
    // returns it (HistogramAggregate::result() as JSON text), read from the
    // stored aggregates, never from every upload: uploads not yet folded in by
    // the refresher are merged in (up to kMaxMergedPending). nullopt when no
    // upload of the model has a point in the experiment.
    virtual std::optional<std::string> aggregate(const std::string &gpu_key, const std::string &experiment) = 0;
    // aggregate() of several experiments of one model, in their order (a GPU
    // page shows every experiment). The default asks for each in turn;
    // PostgreSQL reads them in two or three statements.
    virtual std::vector<std::optional<std::string>> aggregates(const std::string &gpu_key,
                                                               const std::vector<std::string> &experiments) {
        std::vector<std::optional<std::string>> out;
        out.reserve(experiments.size());
        for (const std::string &e : experiments) out.push_back(aggregate(gpu_key, e));
        return out;
    }
    // The histogram behind aggregate() in its stored form
    // (HistogramAggregate::encode), queued uploads merged in the same way:
    // for readers that need more than quartiles. nullopt as aggregate().
    virtual std::optional<std::string> aggregate_state(const std::string &gpu_key, const std::string &experiment) = 0;
    // Every model's aggregate of one experiment, as (GPU key, aggregate()'s
    // JSON text), in one read of the stored ones; only models with queued
    // uploads are read again with them merged (as aggregate() does).
    virtual std::vector<std::pair<std::string, std::string>> aggregates_of_experiment(const std::string &experiment) = 0;
    // Folds up to max_runs queued uploads into the stored aggregates, each
    // exactly once even with several processes on one database; returns how
    // many it folded (fewer than max_runs: the queue is empty, or the rest is
    // being folded by another process).
    virtual std::size_t refresh(std::size_t max_runs) = 0;
    // Stored uploads that are not yet folded into the aggregates.
    virtual std::uint64_t pending() = 0;
    // The aggregates' queue as it stands, in one short statement on a reader
    // connection: what /readyz and the metrics report, and how they learn
    // that the database answers (it throws when it does not).
    virtual QueueState queue_state() = 0;

    // --- Moderation (crowd/crowd.hpp): uploads left out of the aggregates ---
    // counted = false: the run leaves the aggregates and the model's count (it
    // leaves the queue, or is subtracted if folded) and stays out, also when it
    // is deleted later; true: it is queued to be folded in again. Idempotent.
    // False when there is no such run.
    virtual bool set_counted(const std::string &run_id, bool counted) = 0;
};

// "sqlite:PATH" or a path: SQLite in WAL mode. "postgres://..." or
// "postgresql://...": PostgreSQL through libpq. Creates the tables if needed.
// Throws std::runtime_error with the reason.
std::unique_ptr<Storage> open_storage(const std::string &url, const StorageOptions &options = {});

}  // namespace gmserver
