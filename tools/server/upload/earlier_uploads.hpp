// A model's facts as its earlier uploads give them: an upload of a model the
// server's table does not know is judged against the first stored upload of
// that model it can read (plausibility.hpp: judge_against_earlier), so that
// one upload cannot claim a larger chip than the model's others.
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

#include "storage/storage.hpp"
#include "upload/plausibility.hpp"

namespace gmserver {

class EarlierUploads {
public:
    explicit EarlierUploads(Storage &storage) : storage_(storage) {}
    // "" when the upload's facts agree with the model's earlier uploads (or
    // the model is known to the table, or has none), else the refusal.
    std::string judge(const std::string &gpu_key, const DeviceFacts &now);

    // The facts remembered per model: the first readable upload's, read once
    // per process (a model's chip does not change).
    static constexpr std::size_t kMaxRemembered = 10000;

private:
    bool facts_of(const std::string &gpu_key, DeviceFacts *out);

    Storage &storage_;
    std::mutex mutex_;
    std::unordered_map<std::string, DeviceFacts> remembered_;
};

}  // namespace gmserver
