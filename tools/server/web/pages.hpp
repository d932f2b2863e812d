// The server's web pages, rendered on the server: plain HTML with the report's
// charts (the same Chart.js and drawing script as `gmlab report --html`).
// Every function returns a whole page; all user-supplied text is escaped.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/storage.hpp"

namespace gmserver {

// Home: the GPU models with their upload counts, each linking to its page.
std::string page_home(const std::vector<GpuCount> &gpus);

// A GPU model: per experiment, the distribution across uploads (median and
// quartiles per point, from aggregate_points in storage/aggregate.hpp), where
// the aggregate has counter rows the model against the counted figures
// (storage/counter_rows.hpp), and links to recent uploads. experiments:
// experiment name -> aggregate_points(...) of that experiment.
std::string page_gpu(const GpuIdentity &gpu, const std::vector<std::pair<std::string, nlohmann::json>> &experiments,
                     const std::vector<StoredRun> &recent);

// One upload: the same content as the HTML report of its document.
std::string page_result(const StoredRun &run);

// Two uploads, or two GPU models, side by side; the URL is shareable
// (/compare?a=ID&b=ID or /compare?gpu_a=KEY&gpu_b=KEY).
std::string page_compare_runs(const StoredRun &a, const StoredRun &b);
std::string page_compare_gpus(const GpuIdentity &a, const nlohmann::json &agg_a, const GpuIdentity &b, const nlohmann::json &agg_b);

// The colour of the i-th series of a chart, the same on every page.
std::string series_color(std::size_t i);

// A small page for 404s and other errors (the message is escaped).
std::string page_error(int status, const std::string &message);

}  // namespace gmserver
