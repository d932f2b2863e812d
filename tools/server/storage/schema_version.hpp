// The version of the database schema this server reads and writes. Each
// backend keeps it in the database (SQLite: PRAGMA user_version; PostgreSQL:
// the table gmlab_schema) and brings an older database up to it when it
// opens one, in one transaction with the rest of its schema statements; a
// database of a higher version was written by a newer server and is refused
// before anything in it changes.
//
//   1  the schema of the release at f352c5a (which wrote no version): runs,
//      point_sets, agg_queue, aggregates, models, uncounted, rate_buckets
//      (PostgreSQL), upload_status and moderation_log. Databases without a
//      version are brought to it by the steps that release already ran
//      (point rows packed into point_sets, every upload queued for the
//      aggregates, PostgreSQL's packed_document column).
//   2  the aggregates keep x on the canonical axis (canonical_axis.hpp) and
//      count the uploads' shapes (aggregate.hpp, state "GMH2"): the stored
//      aggregates and models' folded counts are dropped and every counted
//      upload (not in uncounted) is queued again, so the refreshers rebuild
//      them. The tables are the same.
#pragma once

#include <string>

namespace gmserver {

constexpr int kSchemaVersion = 2;

// The message for a database whose version is newer than kSchemaVersion.
inline std::string newer_schema_message(const std::string &where, long long found) {
    return where + " has schema version " + std::to_string(found) + ", newer than this gmlab-server's (" +
           std::to_string(kSchemaVersion) +
           "): it was written by a newer release. Run that release (or a newer one), or restore a backup made "
           "before the upgrade; nothing was changed";
}

}  // namespace gmserver
