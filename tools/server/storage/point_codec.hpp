// Compact storage of one upload's points for one experiment: a run document
// has hundreds of points, and storing them as one blob per (run, experiment)
// instead of one row each keeps an upload to a few rows and the per-model
// aggregation a sequential read.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/aggregate.hpp"
#include "storage/storage.hpp"

namespace gmserver {

// Layout (little-endian): u32 string count, then each string as u32 length +
// bytes (series names and fields, each once); u32 point count, then each point
// as u32 series index, u32 field index, f64 x, f64 value.
std::string encode_points(const std::vector<const PointRow *> &points);

// Calls visit for every headline point in the blob with run_id and
// experiment filled in, and for the counter rows too (counter_rows.hpp) when
// with_counter_rows is true. Returns false (having visited nothing) when the
// blob is malformed.
//
// Headline points only by default: this is what the export and
// Storage::points() hand out, and the export writes a series' field once per
// run of rows with the same series name, which holds for headline rows (one
// field per series) but not for a series' counter rows. The aggregates read
// every row (decode_point_set).
bool decode_points(std::string_view blob, const std::string &run_id, const std::string &experiment,
                   const std::function<void(const PointRow &)> &visit, bool with_counter_rows = false);

// The blob's strings and points as they are stored (indexes into strings),
// without a PointRow per point: what the aggregates' refresher folds.
// Returns false (both vectors cleared) when the blob is malformed.
bool decode_point_set(std::string_view blob, std::vector<std::string> &strings,
                      std::vector<HistogramAggregate::Point> &points);

// zstd at level 1 (a run document shrinks about 4:1; see kDocumentLevel).
std::string compress_document(std::string_view text);
// The form in which a run's document is stored: the client's gzip member or
// zstd frame when the run carries it (StoredRun::document_compressed),
// otherwise compress_document.
std::string packed_document(const StoredRun &run);
// A stored document: a zstd frame (compress_document) or one plain gzip
// member (a client's body kept as it came). Throws std::runtime_error when the
// data is neither, or damaged.
std::string decompress_document(std::string_view data);
// True when data starts like either of those forms (older stores hold JSON text).
bool is_compressed_document(std::string_view data);

}  // namespace gmserver
