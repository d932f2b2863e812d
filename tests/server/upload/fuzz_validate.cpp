// libFuzzer target for the upload validator: any bytes in, a verdict out,
// never a crash, hang or sanitizer report. An accepted document must come
// with a GPU key of [a-z0-9.-] and finite points.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "upload/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string body(reinterpret_cast<const char *>(data), size);
    const gmserver::ValidatedUpload v = gmserver::validate_upload(body);
    if (!v.ok) {
        if (v.error_code.empty() || v.error_message.empty()) std::abort();
        return 0;
    }
    for (char c : v.gpu.key)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) std::abort();
    for (const gmserver::PointRow &p : v.points)
        if (!std::isfinite(p.x) || !std::isfinite(p.value)) std::abort();
    // The stored document must validate again to the same points (CSV export relies on it).
    const gmserver::ValidatedUpload again = gmserver::validate_upload(v.document);
    if (!again.ok || again.points.size() != v.points.size()) std::abort();
    return 0;
}
