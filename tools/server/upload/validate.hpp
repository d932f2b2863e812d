// Upload validation: request body text in, a run ready to store (GPU identity,
// document, points) or an error out. Pure: no I/O, no global state, so the
// fuzzer can call it on any bytes.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storage/storage.hpp"
#include "upload/shape_limits.hpp"
#include "upload/plausibility.hpp"

namespace simdjson::dom {
class element;
}

namespace gmserver {

struct ValidationLimits {
    int max_depth = 64;                     // nesting of arrays and objects
    std::size_t max_string_bytes = 65536;   // any one string (keys included)
    std::size_t max_array_items = 100000;   // any one array
    std::size_t max_results = 256;          // results in one run
    // The experiments accepted and the results, series and points each may
    // have (shape_limits.hpp); null: any.
    std::shared_ptr<const ShapeTable> shapes;
};

struct ValidatedUpload {
    bool ok = false;
    std::string error_code;     // machine-readable, e.g. "invalid_json", "implausible"
    std::string error_message;  // names the offending place
    std::string submission_id;  // from the document's top-level "submission_id" ("" if none)
    GpuIdentity gpu;
    std::string document;       // canonical JSON text of the validated document
    // True when document is not the body as received: an older document
    // (before gmlab.run/1.3) lost the figures its series' quantities do not
    // have, so a compressed copy of the body must not be stored for it.
    bool rewritten = false;
    std::vector<PointRow> points;  // run_id left empty: the caller assigns it
    // The run's identity (run_identity.hpp): the server's digest of what it
    // measured, which the storage keys it by instead of any id the uploader chose.
    std::string run_identity;
    DeviceFacts facts;  // the device facts its figures were judged by
};

// Takes the body over (it becomes the stored document when valid). Bodies
// with kParserPadding bytes of spare capacity are parsed without a copy.
ValidatedUpload validate_upload(std::string body, const ValidationLimits &limits = ValidationLimits());

// The same, and then, for a valid document, `also` is called with its parsed
// root (valid until validate_upload returns), so that a caller can read more of
// it without parsing the text a second time.
using ParsedDocumentReader = std::function<void(const simdjson::dom::element &root)>;
ValidatedUpload validate_upload(std::string body, const ValidationLimits &limits, const ParsedDocumentReader &also);
constexpr std::size_t kParserPadding = 64;

// The normalised key of a GPU model: lower-case name with runs of other
// characters turned into '-', then compute capability, memory in GiB and bus
// width, e.g. "nvidia-h200-cc9.0-140gib-6016bit". Only [a-z0-9.-].
std::string gpu_key(const std::string &name, const std::string &cc, std::uint64_t memory_bytes, int bus_width_bits);

// The device facts of a document that was stored (it passed validate_upload),
// for judging a later upload of the same model against it; nullopt when they
// cannot be read.
std::optional<DeviceFacts> stored_device_facts(const std::string &document);

// True when s is 1..128 characters of [A-Za-z0-9._-].
bool valid_submission_id(const std::string &s);

}  // namespace gmserver
