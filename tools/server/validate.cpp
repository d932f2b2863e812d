#include "validate.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "gmlab.h"

namespace gmserver {
namespace {

using nlohmann::json;

struct Reject {
    std::string code, message;
};

[[noreturn]] void reject(const std::string &code, const std::string &message) { throw Reject{code, message}; }

void require(bool ok, const std::string &where, const std::string &what) {
    if (!ok) reject("invalid_document", where + ": " + what);
}

const json &member(const json &obj, const char *key, const std::string &where) {
    auto it = obj.find(key);
    if (it == obj.end()) reject("invalid_document", where + ": missing \"" + key + "\"");
    return *it;
}

std::string text(const json &obj, const char *key, const std::string &where, std::size_t max_len) {
    const json &v = member(obj, key, where);
    require(v.is_string(), where + "." + key, "must be a string");
    const std::string s = v.get<std::string>();
    require(s.size() <= max_len, where + "." + key, "longer than " + std::to_string(max_len) + " bytes");
    return s;
}

double number(const json &obj, const char *key, const std::string &where) {
    const json &v = member(obj, key, where);
    require(v.is_number(), where + "." + key, "must be a number");
    const double d = v.get<double>();
    require(std::isfinite(d), where + "." + key, "must be finite");
    return d;
}

// A measured number that must be finite and > 0.
void positive(const json &obj, const char *key, const std::string &where) {
    if (number(obj, key, where) <= 0) reject("implausible", where + "." + key + ": must be > 0");
}

struct DeviceFacts {
    double theoretical_gbs = 0;
    double l2_bytes = 0;
};

// Bandwidth above this is not a measurement. Data that cannot sit in L2
// (bytes moved per launch at least twice the L2 size) comes from DRAM, so 1.5x
// the theoretical DRAM bandwidth is generous; cache-resident working sets
// (l2_persist, small arrays, shared-memory kernels) legitimately exceed DRAM
// bandwidth, so they get 10x. A device that reports no theoretical bandwidth
// (integrated GPUs) gets a fixed ceiling far above any current GPU.
double bandwidth_bound(const DeviceFacts &dev, double bytes) {
    if (dev.theoretical_gbs <= 0) return 50000.0;
    const bool dram = dev.l2_bytes > 0 && bytes >= 2 * dev.l2_bytes;
    return (dram ? 1.5 : 10.0) * dev.theoretical_gbs + 50.0;
}

void check_point(const json &p, const std::string &where, const DeviceFacts &dev) {
    require(p.is_object(), where, "must be an object");
    number(p, "x", where);
    const json &t = member(p, "time_ms", where);
    require(t.is_object(), where + ".time_ms", "must be an object");
    const std::string tw = where + ".time_ms";
    for (const char *k : {"median", "min", "max", "mean"}) positive(t, k, tw);
    const double median = t["median"].get<double>(), mn = t["min"].get<double>(), mx = t["max"].get<double>();
    if (!(mn <= median * (1 + 1e-9) && median <= mx * (1 + 1e-9)))
        reject("implausible", tw + ": min <= median <= max does not hold");
    if (number(t, "stddev", tw) < 0) reject("implausible", tw + ".stddev: must be >= 0");
    const json &n = member(t, "n", tw);
    require(n.is_number_integer() || n.is_number_unsigned(), tw + ".n", "must be an integer");
    const long long count = n.get<long long>();
    if (count < 1 || count > 100000000) reject("implausible", tw + ".n: must be 1..1e8");
    if (t.contains("samples")) {
        const json &s = t["samples"];
        require(s.is_array(), tw + ".samples", "must be an array");
        // Uploads may carry a trimmed subset of the samples, never more than n.
        if (static_cast<long long>(s.size()) > count) reject("implausible", tw + ".samples: more samples than n");
        for (const json &v : s) {
            require(v.is_number(), tw + ".samples", "must hold numbers");
            const double d = v.get<double>();
            if (!std::isfinite(d) || d <= 0) reject("implausible", tw + ".samples: every sample must be finite and > 0");
        }
    }
    double bytes = 0;
    if (p.contains("bytes")) {
        bytes = number(p, "bytes", where);
        if (bytes < 0) reject("implausible", where + ".bytes: must be >= 0");
    }
    if (p.contains("bandwidth_gbs")) {
        const double bw = number(p, "bandwidth_gbs", where);
        if (bw < 0) reject("implausible", where + ".bandwidth_gbs: must be >= 0");
        const double bound = bandwidth_bound(dev, bytes);
        if (bw > bound)
            reject("implausible", where + ".bandwidth_gbs: " + std::to_string(bw) + " GB/s is above the bound of " +
                                      std::to_string(bound) + " GB/s derived from the device block");
        // bandwidth is bytes / median time: a document whose figures disagree was edited.
        if (bytes > 0) {
            const double expected = bytes / (median * 1e6);
            if (std::fabs(bw - expected) > 0.02 * expected + 1e-9)
                reject("implausible", where + ".bandwidth_gbs: does not equal bytes / median time");
        }
    }
    for (const char *k : {"fraction_of_theoretical", "fraction_of_memcpy"}) {
        if (!p.contains(k)) continue;
        const double f = number(p, k, where);
        if (f < 0 || f > 20) reject("implausible", where + "." + k + ": must be within 0..20");
    }
}

// The C API reads the result the way every other gmlab tool does; its points
// are what the server stores as rows.
void read_points(json single, const json &device, const std::string &where, const std::string &experiment,
                 std::vector<PointRow> &rows) {
    single["device"] = device;
    const std::string doc = single.dump();
    gm_result *raw = nullptr;
    if (gm_result_from_json(&raw, doc.c_str()) != GM_OK)
        reject("invalid_document", where + ": " + std::string(gm_last_error()));
    std::unique_ptr<gm_result, void (*)(gm_result *)> r(raw, gm_result_destroy);
    const std::size_t ns = gm_result_series_count(r.get());
    for (std::size_t s = 0; s < ns; ++s) {
        const char *name = gm_result_series_name(r.get(), s);
        const char *field = gm_result_series_info(r.get(), s, "y.field");
        if (!name || !field) reject("invalid_document", where + ": series without name or y.field");
        const std::size_t np = gm_result_point_count(r.get(), s);
        for (std::size_t p = 0; p < np; ++p) {
            double x = 0, v = 0;
            if (gm_result_point_value(&x, r.get(), s, p, "x") != GM_OK ||
                gm_result_point_value(&v, r.get(), s, p, field) != GM_OK)
                reject("invalid_document", where + ".series[" + std::to_string(s) + "]: point " + std::to_string(p) +
                                               " has no \"" + field + "\"");
            if (!std::isfinite(x) || !std::isfinite(v))
                reject("implausible", where + ".series[" + std::to_string(s) + "]: non-finite value");
            rows.push_back(PointRow{"", experiment, name, field, x, v});
        }
    }
}

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above
// U+10FFFF. The JSON parser passes raw bytes inside strings through unchecked.
bool valid_utf8(const std::string &s) {
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len;
        unsigned cp, min;
        if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F, min = 0x80;
        else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F, min = 0x800;
        else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07, min = 0x10000;
        else return false;
        if (i + len > n) return false;
        for (std::size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += len;
    }
    return true;
}

// One pass over the JSON text: nesting depth, the length of every string
// (keys too, counted in raw bytes) and the number of items of every array.
// Text that is not JSON passes here and is rejected by the parser.
void check_shape(const std::string &text, const ValidationLimits &limits) {
    struct Level {
        bool array;
        std::size_t items;
        bool empty;
    };
    std::vector<Level> stack;
    stack.reserve(static_cast<std::size_t>(limits.max_depth) + 1);
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n; ++i) {
        const char c = text[i];
        if (c == '"') {
            const std::size_t start = ++i;
            while (i < n && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
            if (i - start > limits.max_string_bytes)
                reject("too_large", "a string is longer than " + std::to_string(limits.max_string_bytes) + " bytes");
            if (!stack.empty()) stack.back().empty = false;
        } else if (c == '[' || c == '{') {
            if (!stack.empty()) stack.back().empty = false;
            if (stack.size() >= static_cast<std::size_t>(limits.max_depth))
                reject("too_deep", "JSON nested deeper than " + std::to_string(limits.max_depth));
            stack.push_back(Level{c == '[', 0, true});
        } else if (c == ']' || c == '}') {
            if (!stack.empty()) stack.pop_back();
        } else if (c == ',' && !stack.empty() && stack.back().array) {
            if (++stack.back().items + 1 > limits.max_array_items)
                reject("too_large", "an array has more than " + std::to_string(limits.max_array_items) + " items");
        }
    }
}

bool valid_cc(const std::string &cc) {
    const auto dot = cc.find('.');
    if (dot == std::string::npos || dot == 0 || dot > 2 || cc.size() - dot - 1 < 1 || cc.size() - dot - 1 > 2) return false;
    for (std::size_t i = 0; i < cc.size(); ++i)
        if (i != dot && (cc[i] < '0' || cc[i] > '9')) return false;
    return true;
}

}  // namespace

std::string gpu_key(const std::string &name, const std::string &cc, std::uint64_t memory_bytes, int bus_width_bits) {
    std::string k;
    for (unsigned char c : name) {
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) k.push_back(char(c));
        else if (!k.empty() && k.back() != '-') k.push_back('-');
    }
    while (!k.empty() && k.back() == '-') k.pop_back();
    if (k.empty()) k = "gpu";
    const auto gib = static_cast<unsigned long long>(std::llround(double(memory_bytes) / (1024.0 * 1024.0 * 1024.0)));
    return k + "-cc" + cc + "-" + std::to_string(gib) + "gib-" + std::to_string(bus_width_bits) + "bit";
}

bool valid_submission_id(const std::string &s) {
    if (s.empty() || s.size() > 128) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return false;
    return true;
}

ValidatedUpload validate_upload(const std::string &body, const ValidationLimits &limits) {
    ValidatedUpload out;
    try {
        // nlohmann's parser is iterative and rejects ill-formed UTF-8 and lone
        // surrogates itself; the callback bounds depth, string and array sizes
        // while parsing, before a hostile document is fully built.
        if (!valid_utf8(body)) reject("invalid_json", "the body is not valid UTF-8");
        // The shape limits are checked on the raw text first, so that a
        // hostile document is never built and the parser needs no callback.
        check_shape(body, limits);
        json doc;
        try {
            doc = json::parse(body);
        } catch (const json::exception &e) {
            reject("invalid_json", e.what());
        }
        require(doc.is_object(), "document", "must be an object");
        const json &schema = member(doc, "schema", "document");
        require(schema.is_string() && schema.get<std::string>() == "gmlab.run/1", "document.schema",
                "must be \"gmlab.run/1\"");
        for (const char *k : {"library", "settings", "device"}) require(member(doc, k, "document").is_object(), std::string("document.") + k, "must be an object");
        text(doc, "created_at", "document", 64);
        text(doc, "command", "document", 4096);
        if (doc.contains("submission_id")) {
            const json &sid = doc["submission_id"];
            require(sid.is_string() && valid_submission_id(sid.get<std::string>()), "document.submission_id",
                    "must be 1..128 characters of [A-Za-z0-9._-]");
            out.submission_id = sid.get<std::string>();
        }

        const json &device = doc["device"];
        GpuIdentity &g = out.gpu;
        g.name = text(device, "name", "device", 256);
        require(!g.name.empty(), "device.name", "must not be empty");
        g.compute_capability = text(device, "compute_capability", "device", 8);
        require(valid_cc(g.compute_capability), "device.compute_capability", "must look like \"9.0\"");
        const double mem = number(device, "global_memory_bytes", "device");
        if (mem < 1 || mem > 1e15) reject("implausible", "device.global_memory_bytes: must be 1..1e15");
        g.memory_bytes = static_cast<std::uint64_t>(mem);
        const double bus = number(device, "memory_bus_width_bits", "device");
        if (bus < 0 || bus > 65536 || bus != std::floor(bus)) reject("implausible", "device.memory_bus_width_bits: must be an integer 0..65536");
        g.bus_width_bits = static_cast<int>(bus);
        g.driver_version = device.contains("driver_version") ? text(device, "driver_version", "device", 256) : "";
        g.runtime_version = device.contains("runtime_version") ? text(device, "runtime_version", "device", 256) : "";
        g.key = gpu_key(g.name, g.compute_capability, g.memory_bytes, g.bus_width_bits);

        DeviceFacts dev;
        dev.theoretical_gbs = number(device, "theoretical_bandwidth_gbs", "device");
        if (dev.theoretical_gbs < 0 || dev.theoretical_gbs > 1e5) reject("implausible", "device.theoretical_bandwidth_gbs: must be 0..1e5");
        if (device.contains("l2_cache_bytes")) dev.l2_bytes = number(device, "l2_cache_bytes", "device");

        member(doc, "results", "document");
        json &results = doc["results"];
        require(results.is_array() && !results.empty(), "document.results", "must be a non-empty array");
        require(results.size() <= limits.max_results, "document.results", "too many results");

        for (std::size_t i = 0; i < results.size(); ++i) {
            const std::string where = "results[" + std::to_string(i) + "]";
            const json &r = results[i];
            require(r.is_object(), where, "must be an object");
            require(!r.contains("device"), where, "must not carry its own device block");
            const json &exp = member(r, "experiment", where);
            require(exp.is_object(), where + ".experiment", "must be an object");
            const std::string name = text(exp, "name", where + ".experiment", 64);
            const json &series = member(r, "series", where);
            require(series.is_array(), where + ".series", "must be an array");
            for (std::size_t s = 0; s < series.size(); ++s) {
                const std::string sw = where + ".series[" + std::to_string(s) + "]";
                require(series[s].is_object(), sw, "must be an object");
                const json &points = member(series[s], "points", sw);
                require(points.is_array(), sw + ".points", "must be an array");
                for (std::size_t p = 0; p < points.size(); ++p)
                    check_point(points[p], sw + ".points[" + std::to_string(p) + "]", dev);
            }
            read_points(std::move(results[i]), device, where, name, out.points);
        }
        // Stored as received: valid UTF-8 JSON that passed every check above.
        out.document = body;
        out.ok = true;
    } catch (const Reject &r) {
        out.ok = false;
        out.error_code = r.code;
        out.error_message = r.message;
        out.points.clear();
    } catch (const std::exception &e) {
        out.ok = false;
        out.error_code = "invalid_document";
        out.error_message = e.what();
        out.points.clear();
    }
    return out;
}

}  // namespace gmserver
