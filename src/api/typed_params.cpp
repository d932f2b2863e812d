#include "api/typed_params.hpp"

#include <string>

#include "core/error.hpp"
#include "core/experiment/params.hpp"
#include "core/experiment/registry.hpp"

namespace gmlab {

namespace {

using nlohmann::json;

json variants_json(int bits) {
    if (bits < 0 || bits > 3) invalid("variants must be a combination of GM_COPY_GUIDE and GM_COPY_ILP4 (0..3), got " + std::to_string(bits));
    if (bits == 0) bits = GM_COPY_GUIDE | GM_COPY_ILP4;
    json v = json::array();
    if (bits & GM_COPY_GUIDE) v.push_back("guide");
    if (bits & GM_COPY_ILP4) v.push_back("ilp4");
    return v;
}

// The declaration of `experiment`'s parameter `name`: its bounds are the ones
// the struct's fields are checked against, so that they are written once.
const ParamSpec &declared(const std::string &experiment, const std::string &name) {
    for (const ParamSpec &p : find_experiment(experiment).params)
        if (p.name == name) return p;
    fail(GM_ERROR_INTERNAL, experiment + " declares no parameter " + name);
}

// Every integer from lo to hi, the list parameter `name` of `experiment` as a
// struct gives it by two fields. The fields are checked here, before the list
// is built (a wide range would be a large list), each named as the caller
// wrote it; the resolver then checks the list as any other.
json bounded_list(const std::string &experiment, const std::string &name, int lo, int hi, const char *lo_name,
                  const char *hi_name) {
    if (hi < lo)
        invalid(std::string(hi_name) + " must be at least " + lo_name + " (" + std::to_string(lo) + "), got " +
                std::to_string(hi));
    const ParamSpec &spec = declared(experiment, name);
    const auto min = static_cast<long long>(spec.min), max = static_cast<long long>(spec.max);
    for (const auto &[field, value] : {std::pair<const char *, int>{lo_name, lo}, {hi_name, hi}})
        if (value < min || value > max)
            invalid(std::string(field) + " must be in " + std::to_string(min) + ".." + std::to_string(max) +
                    ", got " + std::to_string(value));
    json list = json::array();
    for (long long i = lo; i <= hi; ++i) list.push_back(i);
    return list;
}

}  // namespace

json stream_params_json(const gm_stream_params &p) {
    json params = {{"array_bytes", p.array_bytes}, {"include_memcpy", p.include_memcpy != 0}};
    if (p.block_size != 0) params["block_size"] = p.block_size;
    return params;
}

json offset_copy_params_json(const gm_offset_copy_params &p) {
    return {{"elements", p.elements},
            {"offsets", bounded_list("offset_copy", "offsets", p.min_offset, p.max_offset, "min_offset", "max_offset")},
            {"word_sizes", json::array({p.word_size})},
            {"variants", variants_json(p.variants)}};
}

json stride_copy_params_json(const gm_stride_copy_params &p) {
    json params = {{"elements", p.elements},
                   {"strides", bounded_list("stride_copy", "strides", p.min_stride, p.max_stride, "min_stride", "max_stride")},
                   {"variants", variants_json(p.variants)}};
    if (p.word_size != 0) params["word_sizes"] = json::array({p.word_size});
    return params;
}

}  // namespace gmlab
