// The PostgreSQL storage's refresher: queued uploads folded into the stored
// per-model aggregates, exactly once across every server process on the
// database (BackgroundRefresher calls refresh()).
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "storage/postgres/internal.hpp"

namespace gmserver::postgres {

std::size_t PostgresStorage::refresh(std::size_t max_runs) {
    Result m = with_connection([&](PGconn *c, bool &) { return exec(c, "queued_models", {}, PGRES_TUPLES_OK); });
    std::vector<std::string> models;
    for (int i = 0; i < m.rows(); ++i) models.push_back(m.text(i, 0));
    return fold_queued_models(models, max_runs, kRefreshBatch,
                              [this](const std::string &key, std::size_t limit) { return fold_model(key, limit); });
}

// Folds up to `limit` of the model's queued uploads, oldest first, in one
// transaction holding the model's advisory lock: their queue rows are
// deleted, their points added to the stored histograms, the aggregates'
// JSON rewritten and the model's count raised, all committed together.
// Exactly once: a queue row is folded by the transaction that deleted it,
// and folds (and deletes) of one model never overlap; an upload that
// commits meanwhile is not seen by this fold and stays queued for the next.
// Another process folding the model already: 0, it is left to that one.
std::size_t PostgresStorage::fold_model(const std::string &gpu_key, std::size_t limit) {
    return with_connection([&](PGconn *c, bool &committing) -> std::size_t {
        Transaction tx(c);
        if (exec(c, "try_lock_model", {gpu_key}, PGRES_TUPLES_OK).text(0, 0) != "t") return 0;
        const std::string lim = std::to_string(limit);
        Result q = exec(c, "dequeue_runs", {gpu_key, lim}, PGRES_TUPLES_OK, true);
        if (q.rows() == 0) return 0;
        // The point sets by an explicit list of the dequeued runs. Joined
        // to the DELETE's result in one statement, they were read with a
        // plan made for a guess of how many rows the DELETE returns: once
        // point_sets had statistics (about 2.4 million rows), a fold of 256
        // uploads took seconds instead of tens of milliseconds (measured
        // with 90,000 queued).
        BinaryArray ids(kTextOid);
        for (int i = 0; i < q.rows(); ++i) ids.add(q.bytes(i, 0));
        const std::string arr = ids.bytes();
        Result d = exec(c, "point_sets_of_runs", {Param(arr, true)}, PGRES_TUPLES_OK, true);
        std::map<std::string_view, std::vector<int>> sets_of;  // run id -> its rows in d
        std::set<std::string> experiments;
        for (int i = 0; i < d.rows(); ++i) {
            sets_of[d.bytes(i, 0)].push_back(i);
            experiments.insert(d.text(i, 1));
        }
        States states(*this, c, gpu_key);
        states.load(experiments);
        // Folded in the order of the queue: (created_at, run_id).
        std::vector<int> order(static_cast<std::size_t>(q.rows()));
        for (int i = 0; i < q.rows(); ++i) order[static_cast<std::size_t>(i)] = i;
        std::sort(order.begin(), order.end(), [&](int a, int b) {
            const std::string_view ca = q.bytes(a, 1), cb = q.bytes(b, 1);
            if (ca != cb) return ca < cb;
            return q.bytes(a, 0) < q.bytes(b, 0);
        });
        for (int r : order) {
            const auto it = sets_of.find(q.bytes(r, 0));
            if (it == sets_of.end()) continue;  // a run without points
            for (int i : it->second) states.fold(d.text(i, 1), d.bytes(i, 2), +1);
        }
        const std::size_t runs = static_cast<std::size_t>(q.rows());
        states.save();
        exec(c, "fold_model", {gpu_key, std::to_string(runs)}, PGRES_COMMAND_OK);
        committing = true;
        tx.commit();
        return runs;
    });
}

PostgresStorage::States::States(PostgresStorage &s, PGconn *c, const std::string &gpu_key)
    : ModelStates("postgres", gpu_key,
                  [&s, c, gpu_key](const std::string &experiment) {
                      BinaryArray names(kTextOid);
                      names.add(experiment);
                      const std::string arr = names.bytes();
                      Result r = s.exec(c, "load_states", {gpu_key, Param(arr, true)}, PGRES_TUPLES_OK, true);
                      return r.rows() > 0 ? HistogramAggregate::decode(r.bytes(0, 1)) : HistogramAggregate();
                  }),
      s_(s), c_(c) {}

// Loads the states of these experiments (one statement for a batch).
void PostgresStorage::States::load(const std::set<std::string> &experiments) {
    BinaryArray names(kTextOid);
    for (const std::string &e : experiments)
        if (!holds(e)) names.add(e);
    const std::string arr = names.bytes();
    Result r = s_.exec(c_, "load_states", {gpu_key(), Param(arr, true)}, PGRES_TUPLES_OK, true);
    for (int i = 0; i < r.rows(); ++i) hold(r.text(i, 0), HistogramAggregate::decode(r.bytes(i, 1)));
    for (const std::string &e : experiments)
        if (!holds(e)) hold(e, HistogramAggregate());
}

void PostgresStorage::States::save() {
    BinaryArray put_names(kTextOid), uploads(kInt8Oid), blobs(kByteaOid), results(kTextOid), drop_names(kTextOid);
    bool any_put = false, any_drop = false;
    for (const auto &[experiment, h] : states()) {
        if (h.empty()) {
            drop_names.add(experiment);
            any_drop = true;
            continue;
        }
        put_names.add(experiment);
        uploads.add_int8(static_cast<std::int64_t>(h.uploads()));
        blobs.add(h.encode());
        results.add(h.result().dump());
        any_put = true;
    }
    if (any_put) {
        const std::string a = put_names.bytes(), b = uploads.bytes(), d = blobs.bytes(), e = results.bytes();
        s_.exec(c_, "save_states", {gpu_key(), Param(a, true), Param(b, true), Param(d, true), Param(e, true)},
                PGRES_COMMAND_OK);
    }
    if (any_drop) {
        const std::string a = drop_names.bytes();
        s_.exec(c_, "drop_states", {gpu_key(), Param(a, true)}, PGRES_COMMAND_OK);
    }
}

}  // namespace gmserver::postgres
