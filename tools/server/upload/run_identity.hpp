// One run, one row: the identity of a run is the server's own digest of what
// it measured, not an id the uploader chose. Two uploads with the same
// identity are the same run (a retry, a compact and a full copy of it, or the
// same bytes sent again with another submission_id) and are stored once; an
// uploader's submission_id cannot claim another document's place.
#pragma once

#include <string>
#include <vector>

#include "storage/storage.hpp"

namespace gmserver {

// Hex SHA-256 of the run's GPU model key, its created_at, every figure of its
// points (experiment, series, field, x, value) and of its results' summaries,
// in order: what is stored of it and what it is judged by, so that no other
// document can take its place. The device's UUID is not part of it:
// gmlab-upload removes it before a run is sent.
std::string run_identity(const std::string &gpu_key, const std::string &created_at, const std::vector<PointRow> &points,
                         const std::vector<PointRow> &summaries = {});

}  // namespace gmserver
