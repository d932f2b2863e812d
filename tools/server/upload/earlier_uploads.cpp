#include "upload/earlier_uploads.hpp"

#include "upload/validate.hpp"

namespace gmserver {

bool EarlierUploads::facts_of(const std::string &gpu_key, DeviceFacts *out) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = remembered_.find(gpu_key);
        if (it != remembered_.end()) {
            *out = it->second;
            return true;
        }
    }
    // The newest few: one that cannot be read (stored before today's rules)
    // is passed over.
    for (const StoredRun &listed : storage_.runs_of(gpu_key, 4)) {
        const std::optional<StoredRun> run = storage_.get(listed.id);
        if (!run) continue;
        const std::optional<DeviceFacts> facts = stored_device_facts(run->document);
        if (!facts) continue;
        std::lock_guard<std::mutex> lock(mutex_);
        if (remembered_.size() >= kMaxRemembered) remembered_.clear();
        remembered_[gpu_key] = *facts;
        *out = *facts;
        return true;
    }
    return false;
}

std::string EarlierUploads::judge(const std::string &gpu_key, const DeviceFacts &now) {
    if (now.known_model) return "";  // the table decided
    DeviceFacts earlier;
    if (!facts_of(gpu_key, &earlier)) return "";
    return judge_against_earlier(now, earlier);
}

}  // namespace gmserver
