// Experiment family "texture memory": reads with 2D locality through a texture
// object vs global loads vs __ldg, and the texture unit's capabilities, each
// checked against a host model.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"
#include "experiments/common/point_checks.hpp"
#include "experiments/texture/texture.cuh"
#include "shared_kernels/pattern.hpp"

namespace gmlab {

namespace {

const Figure kReadOverGlobal{"{read}_over_global_time", "ratio", Better::Lower,
                             "time of the rotation read through the texture path or __ldg over plain global loads"};
const Figure kCapabilitiesPassed{"capabilities_passed", "count", Better::Higher,
                                 "texture capabilities (filtering, addressing, conversions) matched by their host model"};


using kernels::RotateRead;
constexpr std::uint32_t kSeed = 1234;

// A 2D CUDA array and a texture object over it, released on every path.
class TextureImage {
public:
    TextureImage(const cudaChannelFormatDesc &desc, int width, int height, const void *host, std::size_t elem,
                 cudaTextureAddressMode mode, cudaTextureFilterMode filter, bool normalized_coords,
                 cudaTextureReadMode read, cudaStream_t stream) {
        GM_CUDA(cudaMallocArray(&array_, &desc, width, height));
        GM_CUDA(cudaMemcpy2DToArrayAsync(array_, 0, 0, host, width * elem, width * elem, height, cudaMemcpyHostToDevice, stream));
        cudaResourceDesc res{};
        res.resType = cudaResourceTypeArray;
        res.res.array.array = array_;
        cudaTextureDesc td{};
        td.addressMode[0] = td.addressMode[1] = mode;
        td.filterMode = filter;
        td.readMode = read;
        td.normalizedCoords = normalized_coords ? 1 : 0;
        td.borderColor[0] = td.borderColor[1] = td.borderColor[2] = td.borderColor[3] = 0.0f;
        GM_CUDA(cudaCreateTextureObject(&tex_, &res, &td, nullptr));
    }
    ~TextureImage() {
        if (tex_) cudaDestroyTextureObject(tex_);
        if (array_) cudaFreeArray(array_);
    }
    TextureImage(const TextureImage &) = delete;
    TextureImage &operator=(const TextureImage &) = delete;
    cudaTextureObject_t get() const { return tex_; }

private:
    cudaArray_t array_ = nullptr;
    cudaTextureObject_t tex_ = 0;
};

// One-channel format of T (the C form: the template lives in a CUDA-only header).
template <class T> cudaChannelFormatDesc channel_of() {
    const cudaChannelFormatKind kind = std::is_floating_point_v<T> ? cudaChannelFormatKindFloat
                                       : std::is_signed_v<T>       ? cudaChannelFormatKindSigned
                                                                   : cudaChannelFormatKindUnsigned;
    return cudaCreateChannelDesc(static_cast<int>(8 * sizeof(T)), 0, 0, 0, kind);
}

float unit_value(std::uint64_t i) { return static_cast<float>(pattern_word(i, kSeed) >> 8) * (1.0f / 16777216.0f); }

void check_texture_size(ContextState &ctx, long long width, long long height) {
    int max_w = 0, max_h = 0;
    GM_CUDA(cudaDeviceGetAttribute(&max_w, cudaDevAttrMaxTexture2DWidth, ctx.device()));
    GM_CUDA(cudaDeviceGetAttribute(&max_h, cudaDevAttrMaxTexture2DHeight, ctx.device()));
    if (width > max_w) invalid("width must be at most " + std::to_string(max_w) + " (the device's largest 2D texture), got " + std::to_string(width));
    if (height > max_h) invalid("height must be at most " + std::to_string(max_h) + " (the device's largest 2D texture), got " + std::to_string(height));
}

void run_rotation(ContextState &ctx, const Params &params, Result &out) {
    const int width = static_cast<int>(params.integer("width")), height = static_cast<int>(params.integer("height"));
    check_texture_size(ctx, width, height);
    const std::size_t pixels = static_cast<std::size_t>(width) * height, bytes = pixels * sizeof(float);
    require_memory(ctx, 3 * bytes, "texture (an image in linear memory, one in a CUDA array, and the output)");
    cudaStream_t st = ctx.stream();
    DeviceArray in(ctx, bytes), outbuf(ctx, bytes);
    std::vector<float> host(pixels);
    for (std::size_t i = 0; i < pixels; ++i) host[i] = unit_value(i);
    GM_CUDA(cudaMemcpyAsync(in.get(), host.data(), bytes, cudaMemcpyHostToDevice, st));
    const cudaChannelFormatDesc desc = channel_of<float>();
    TextureImage tex(desc, width, height, host.data(), sizeof(float), cudaAddressModeBorder, cudaFilterModePoint, false,
                     cudaReadModeElementType, st);
    ctx.note_alloc(bytes);  // the CUDA array counts against the budget too
    struct Way {
        const char *name;
        RotateRead how;
    };
    const Way ways[] = {{"global", RotateRead::Global}, {"ldg", RotateRead::Ldg}, {"texture", RotateRead::Texture}};
    std::vector<float> result(pixels);
    std::map<std::string, double> ms;
    for (const Way &w : ways) {
        CheckedLaunch point;
        point.launch = [&](cudaStream_t s) {
            return kernels::launch_rotate(w.how, in.as<float>(), tex.get(), outbuf.as<float>(), width, height, s);
        };
        point.poison = {{outbuf.get(), bytes}};
        point.download = download_to(result.data(), outbuf.get(), bytes);
        point.check = [&] {
            auto want = [&](std::uint64_t i) {
                const long long src = kernels::rotate_source(static_cast<int>(i % width), static_cast<int>(i / width), width, height);
                return src < 0 ? 0.0f : host[src];
            };
            verify_equal(result.data(), pixels, want, std::string("texture rotation through ") + w.name,
                         "every output pixel compared with the host's rotation; every capability with its host model", out);
        };
        Series s = declared_series(std::string("rotation, ") + w.name + " reads", w.name, "image", "bytes",
                                   Quantity::DramBandwidth, {{"width", width}, {"height", height}});
        Point p;
        p.x = static_cast<double>(bytes);
        p.bytes = 2.0 * static_cast<double>(bytes);
        measure_checked(ctx, point, p, out);
        ms[w.name] = p.time_ms.median;
        s.points.push_back(std::move(p));
        out.series.push_back(std::move(s));
    }
    ctx.note_free(bytes);
    out.record(kReadOverGlobal, ms["texture"] / ms["global"], {{"read", "texture"}});
    out.record(kReadOverGlobal, ms["ldg"] / ms["global"], {{"read", "ldg"}});
}

struct Capability {
    std::string name;
    double max_abs_error = 0;
    double tolerance = 0;
    double time_ms = 0;
};

// Samples tex at coords on the device through the core's point protocol (the
// output poisoned, one launch compared with model(i) on the host within
// `tolerance`, then timed).
template <class Model>
Capability sample_and_compare(ContextState &ctx, cudaTextureObject_t tex, const std::vector<float> &coords, Model model,
                              const std::string &name, double tolerance, Result &out) {
    const int n = static_cast<int>(coords.size() / 2);
    DeviceArray dcoords(ctx, coords.size() * sizeof(float)), dout(ctx, n * sizeof(float));
    GM_CUDA(cudaMemcpyAsync(dcoords.get(), coords.data(), coords.size() * sizeof(float), cudaMemcpyHostToDevice, ctx.stream()));
    std::vector<float> got(n);
    Capability c{name, 0, tolerance, 0};
    CheckedLaunch point;
    point.launch = [&](cudaStream_t s) { return kernels::launch_sample(tex, dcoords.as<float>(), dout.as<float>(), n, s); };
    point.poison = {{dout.get(), n * sizeof(float)}};
    point.download = download_to(got.data(), dout.get(), n * sizeof(float));
    point.check = [&] {
        for (int i = 0; i < n; ++i) {
            const double err = std::fabs(static_cast<double>(got[i]) - model(i));
            c.max_abs_error = std::max(c.max_abs_error, err);
            if (!(err <= tolerance))
                verification_failed("texture capability '" + name + "'", static_cast<std::uint64_t>(i), std::to_string(model(i)),
                                    std::to_string(got[i]));
        }
    };
    Point p;
    measure_checked(ctx, point, p, out);
    c.time_ms = p.time_ms.median;
    return c;
}

void run_capabilities(ContextState &ctx, Result &out) {
    constexpr int W = 16, H = 8;
    cudaStream_t st = ctx.stream();
    std::vector<float> texels(W * H);
    for (int i = 0; i < W * H; ++i) texels[i] = unit_value(1000 + i);
    auto texel = [&](int x, int y) { return static_cast<double>(texels[y * W + x]); };
    std::vector<Capability> caps;

    {  // Linear filtering, unnormalized coordinates, clamped at the edges.
        TextureImage tex(channel_of<float>(), W, H, texels.data(), sizeof(float), cudaAddressModeClamp,
                         cudaFilterModeLinear, false, cudaReadModeElementType, st);
        std::vector<float> coords;
        for (int i = 0; i < 200; ++i) {
            coords.push_back(static_cast<float>(pattern_word(i, 5) % (W * 64)) / 64.0f);
            coords.push_back(static_cast<float>(pattern_word(i, 6) % (H * 64)) / 64.0f);
        }
        auto model = [&](int i) {
            // Bilinear between the four texels around (u - 0.5, v - 0.5); the
            // weights are 8-bit fractions in hardware, hence the tolerance.
            const double xb = coords[2 * i] - 0.5, yb = coords[2 * i + 1] - 0.5;
            const int x0 = static_cast<int>(std::floor(xb)), y0 = static_cast<int>(std::floor(yb));
            const double a = xb - x0, b = yb - y0;
            auto t = [&](int x, int y) { return texel(std::clamp(x, 0, W - 1), std::clamp(y, 0, H - 1)); };
            return (1 - a) * (1 - b) * t(x0, y0) + a * (1 - b) * t(x0 + 1, y0) + (1 - a) * b * t(x0, y0 + 1) + a * b * t(x0 + 1, y0 + 1);
        };
        caps.push_back(sample_and_compare(ctx, tex.get(), coords, model, "linear filtering", 2.0 / 256, out));
    }
    {  // Normalized coordinates: texel centres at ((x + 0.5) / W, (y + 0.5) / H).
        TextureImage tex(channel_of<float>(), W, H, texels.data(), sizeof(float), cudaAddressModeClamp,
                         cudaFilterModePoint, true, cudaReadModeElementType, st);
        std::vector<float> coords;
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                coords.push_back((x + 0.5f) / W);
                coords.push_back((y + 0.5f) / H);
            }
        caps.push_back(sample_and_compare(ctx, tex.get(), coords, [&](int i) { return texel(i % W, i / W); },
                                          "normalized coordinates", 0.0, out));
    }
    // Addressing modes, with normalized coordinates (wrap and mirror need them),
    // at texel centres from one image width before to one after.
    struct Mode {
        const char *name;
        cudaTextureAddressMode mode;
    };
    const Mode modes[] = {{"address mode clamp", cudaAddressModeClamp}, {"address mode wrap", cudaAddressModeWrap},
                          {"address mode mirror", cudaAddressModeMirror}, {"address mode border", cudaAddressModeBorder}};
    for (const Mode &m : modes) {
        TextureImage tex(channel_of<float>(), W, H, texels.data(), sizeof(float), m.mode, cudaFilterModePoint,
                         true, cudaReadModeElementType, st);
        std::vector<int> ks, ms;
        std::vector<float> coords;
        for (int mm = -H; mm < 2 * H; mm += 3)
            for (int k = -W; k < 2 * W; ++k) {
                ks.push_back(k);
                ms.push_back(mm);
                coords.push_back((k + 0.5f) / W);
                coords.push_back((mm + 0.5f) / H);
            }
        auto index = [&](int k, int n) -> int {
            switch (m.mode) {
            case cudaAddressModeClamp: return std::clamp(k, 0, n - 1);
            case cudaAddressModeWrap: return ((k % n) + n) % n;
            case cudaAddressModeMirror: {
                const int r = ((k % (2 * n)) + 2 * n) % (2 * n);
                return r < n ? r : 2 * n - 1 - r;
            }
            default: return (k < 0 || k >= n) ? -1 : k;  // border
            }
        };
        auto model = [&](int i) {
            const int x = index(ks[i], W), y = index(ms[i], H);
            return (x < 0 || y < 0) ? 0.0 : texel(x, y);
        };
        caps.push_back(sample_and_compare(ctx, tex.get(), coords, model, m.name, 0.0, out));
    }
    // 8- and 16-bit integers read as normalized floats: unsigned / (2^bits - 1),
    // signed / (2^(bits-1) - 1), at least -1.
    auto integer_check = [&](auto tag, const char *name, double scale) {
        using T = decltype(tag);
        std::vector<T> ints(W * H);
        for (int i = 0; i < W * H; ++i) ints[i] = static_cast<T>(pattern_word(2000 + i, kSeed));
        TextureImage tex(channel_of<T>(), W, H, ints.data(), sizeof(T), cudaAddressModeClamp, cudaFilterModePoint,
                         false, cudaReadModeNormalizedFloat, st);
        std::vector<float> coords;
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                coords.push_back(x + 0.5f);
                coords.push_back(y + 0.5f);
            }
        caps.push_back(sample_and_compare(ctx, tex.get(), coords,
                                          [&](int i) { return std::max(static_cast<double>(ints[i]) / scale, -1.0); }, name, 1e-6, out));
    };
    integer_check(std::uint8_t{}, "8-bit unsigned as normalized float", 255.0);
    integer_check(std::int8_t{}, "8-bit signed as normalized float", 127.0);
    integer_check(std::uint16_t{}, "16-bit unsigned as normalized float", 65535.0);
    integer_check(std::int16_t{}, "16-bit signed as normalized float", 32767.0);

    // Quantity: an error relative to the host model, dimensionless.
    Series s = declared_series("capability checks", "capabilities", "check", "index", Quantity::Ratio);
    s.y_field = "max_abs_error";
    s.y_name = "largest difference from the host model";
    s.y_unit = "";
    nlohmann::json names = nlohmann::json::object();
    for (std::size_t i = 0; i < caps.size(); ++i) {
        Point p;
        p.x = static_cast<double>(i + 1);
        p.time_ms = summarize({caps[i].time_ms});
        p.values["max_abs_error"] = caps[i].max_abs_error;
        p.values["tolerance"] = caps[i].tolerance;
        names[std::to_string(i + 1)] = caps[i].name;
        s.points.push_back(std::move(p));
        out.record(kCapabilitiesPassed, static_cast<double>(i + 1));
    }
    s.attributes = {{"checks", names}};
    out.series.push_back(std::move(s));
}

void run_texture(ContextState &ctx, const Params &params, Result &out) {
    run_rotation(ctx, params, out);
    run_capabilities(ctx, out);
    out.notes.push_back("Rotation: each output pixel reads the input pixel its position maps to under a rotation by "
                        "atan(3/4) about the centre (integer arithmetic, so every path reads the same pixel); a warp's "
                        "reads run along a slanted line: 2D locality, the case texture caches are built for. global: "
                        "plain loads; ldg: the read-only data cache; texture: a point-filtered texture object over a CUDA "
                        "array, with the border address mode giving 0 outside.");
    out.notes.push_back("Capabilities, each against a host model on a 16 x 8 texture: linear filtering (bilinear, the "
                        "hardware's 8-bit weight fractions allowed for), normalized coordinates, the clamp, wrap, mirror "
                        "and border address modes, and 8- and 16-bit integers read as normalized floats. The series "
                        "'capability checks' lists them by index (attributes.checks) with the largest difference found.");
}

// How reports draw texture's result and what they say it shows.
Chart texture_chart() {
    Chart c;
    c.kind = "bar";
    c.leave_out = {"capabilities"};
    c.explanation = "Reads along rotated lines have 2D locality, which the texture path caches well; the capability checks below "
                    "compare the texture unit with host models.";
    return c;
}

}  // namespace

void add_texture_experiments(std::vector<Experiment> &out) {
    Experiment e;
    e.name = "texture";
    e.guide_section = "Best Practices Guide: Texture Memory (additional texture capabilities)";
    e.summary = "A rotation read through a texture object vs global loads vs __ldg, and the texture unit's filtering, "
                "coordinate, addressing and integer-conversion capabilities checked against host models.";
    e.params = {
        int_param("width", 8192, 1, 1 << 20, "image width in pixels (4-byte floats)"),
        int_param("height", 8192, 1, 1 << 20, "image height in pixels"),
    };
    e.run = run_texture;
    e.quick = {{"width", 1024}, {"height", 1024}};
    e.figures = {kReadOverGlobal, kCapabilitiesPassed};
    e.compared = {
        {"texture_over_global_time", "texture time / global time"},
    };
    e.chart = texture_chart();
    out.push_back(std::move(e));
}

}  // namespace gmlab
