#include "explain/names/name_forms.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <set>

namespace gmexplain::names {

namespace {

// Templates that only carry the operator a kernel runs: the name shown is the operator's.
const std::set<std::string> kWrappers = {
    "gpu_kernel_impl", "gpu_kernel_impl_nocast", "gpu_kernel", "gpu_kernel_nocast", "gpu_kernel_with_scalars",
    "opmath_gpu_kernel_with_scalars", "opmath_symmetric_gpu_kernel_with_scalars", "launch_kernel",
    "launch_vectorized_kernel", "launch_unrolled_kernel", "launch_legacy_kernel", "launch_legacy_kernel_manual_unroll",
    "func_wrapper_t", "ReduceOp", "BinaryFunctor", "AUnaryFunctor", "BUnaryFunctor", "rng_config",
    "distribution_nullary_kernel", "normal_and_transform", "uniform_and_transform", "gpu_index_kernel"};

// Types that carry data, not an operation: never what a kernel is named for.
const std::set<std::string> kCarriers = {
    "array", "Array", "tuple", "pair", "integral_constant", "TensorListMetadata", "TensorListScalarListMetadata",
    "OffsetCalculator", "TrivialOffsetCalculator", "TensorInfo", "PhiloxCudaState", "OpaqueType"};

// Element types, C++'s, PyTorch's and CUDA's: they say what a kernel runs on, not what it does.
const std::set<std::string> kElementTypes = {
    "void", "bool", "char", "signed", "unsigned", "short", "int", "long", "float", "double", "wchar_t",
    "char16_t", "char32_t", "__int128", "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t",
    "uint8_t", "uint16_t", "uint32_t", "uint64_t", "half", "half2", "__half", "__half2", "__nv_bfloat16",
    "__nv_bfloat162", "__nv_fp8_e4m3", "__nv_fp8_e5m2", "Half", "BFloat16", "complex", "Float8_e4m3fn",
    "Float8_e5m2", "Float8_e4m3fnuz", "Float8_e5m2fnuz", "qint8", "quint8", "qint32", "dim3"};

bool is_element_type(const std::string &id) {
    if (kElementTypes.count(id)) return true;
    static const std::set<std::string> vector_of = {"char", "uchar", "short", "ushort", "int", "uint", "long",
                                                    "ulong", "longlong", "ulonglong", "float", "double"};
    return id.size() > 1 && id.back() >= '1' && id.back() <= '4' && vector_of.count(id.substr(0, id.size() - 1));
}

bool is_identifier(const std::string &id) {
    return !id.empty() && (std::isalpha(static_cast<unsigned char>(id[0])) || id[0] == '_');
}

// What a template argument says a kernel runs, and how surely: code (a
// function, or the function a lambda was written in) says more than a type.
struct Key {
    std::string name;
    int strength = 0;  // 2: code, 1: a type
};

std::optional<Key> key_of(const Name &n);

// The keys of `args` that say the most: those of the strongest kind, each once, in order.
std::vector<Key> best_keys(const std::vector<Name> &args) {
    std::vector<Key> keys, out;
    for (const auto &a : args)
        if (auto k = key_of(a)) keys.push_back(*k);
    int best = 0;
    for (const auto &k : keys) best = std::max(best, k.strength);
    for (const auto &k : keys)
        if (k.strength == best && std::none_of(out.begin(), out.end(), [&](const Key &o) { return o.name == k.name; }))
            out.push_back(k);
    return out;
}

// The key of a named part: its own name, or, for a wrapper, what it wraps.
std::optional<Key> owner_key(const Part &p, bool code) {
    if (!is_identifier(p.id) || is_element_type(p.id) || kCarriers.count(p.id)) return std::nullopt;
    if (kWrappers.count(p.id)) {
        const auto inner = best_keys(p.args);
        if (!inner.empty()) return inner.back();
    }
    return Key{p.id, code ? 2 : 1};
}

std::optional<Key> key_of(const Name &n) {
    // Values say how, not what; an object handed by address (a generator's state) is data.
    if (n.pointer || n.parts.empty()) return std::nullopt;
    bool in_code = n.address;
    for (auto p = n.parts.rbegin(); p != n.parts.rend(); ++p) {
        if (p->id == "(anonymous namespace)") continue;
        if (is_lambda(*p)) {
            in_code = true;
            continue;
        }
        if (p->id == "operator()") {
            // A call operator's own template arguments name what it runs ("operator()<TensorAssign>").
            const auto inner = best_keys(p->args);
            if (!inner.empty()) return Key{inner.back().name, 2};
            in_code = true;
            continue;
        }
        return owner_key(*p, in_code || p->function);
    }
    return std::nullopt;
}

// A value argument as written for a person ("32u" -> "32"); "" for one that is
// no integer ("true", an enumerator's cast "(curandOrdering)101").
std::string integer_text(const Name &n) {
    if (!n.parts.empty() || n.text.empty() || n.text[0] == '(') return "";
    std::string t = n.text;
    while (!t.empty() && std::strchr("uUlL", t.back())) t.pop_back();
    return !t.empty() && std::isdigit(static_cast<unsigned char>(t.back())) ? t : "";
}

std::string joined(const std::vector<std::string> &items) {
    std::string out;
    for (const auto &s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
}

// Integers beyond this many characters ("<32, 32, 256>" is 11) say little at a glance.
constexpr std::size_t kIntegersMax = 24;

}  // namespace

std::string short_form(const Part &kernel) {
    std::vector<std::string> inside;
    for (const auto &k : best_keys(kernel.args)) inside.push_back(k.name);
    if (inside.empty()) {
        for (const auto &a : kernel.args)
            if (const auto t = integer_text(a); !t.empty()) inside.push_back(t);
        if (joined(inside).size() > kIntegersMax) inside.clear();
    }
    return inside.empty() ? kernel.id : kernel.id + "<" + joined(inside) + ">";
}

namespace {

std::string written(const Name &n);

// A part's template arguments as the written form keeps them: no data
// carriers ("std::array<char*, 3>"), and in a wrapper none of its element
// types either, only what it wraps and its integers.
std::string written_arguments(const Part &p) {
    std::vector<std::string> args;
    for (const auto &a : p.args) {
        const Part *named = a.parts.empty() ? nullptr : &a.parts.back();
        if (named && kCarriers.count(named->id)) continue;
        if (kWrappers.count(p.id) && named && (a.pointer || is_element_type(named->id))) continue;
        args.push_back(written(a));
    }
    return joined(args);
}

// A qualified name without what does not tell kernels apart: namespaces,
// parameter lists, call operators without template arguments, and lambdas,
// but for the innermost of those written in a function that is no template
// (its parameters are then all that names the element type:
// "direct_copy_kernel_cuda::{lambda(float)#1}").
std::string written(const std::vector<Part> &parts) {
    std::vector<std::string> kept;
    const Part *owner = nullptr;  // the last part kept that is no lambda
    bool after_lambda = false;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const Part &p = parts[i];
        if (p.id == "operator()" && !p.templated) continue;
        if (i + 1 < parts.size() && !p.templated && !p.function && !is_lambda(p)) continue;  // a namespace
        if (is_lambda(p) && (!owner || owner->templated)) continue;
        const std::string text = p.templated ? p.id + "<" + written_arguments(p) + ">" : p.id;
        if (is_lambda(p) && after_lambda) kept.back() = text;
        else kept.push_back(text);
        after_lambda = is_lambda(p);
        if (!after_lambda) owner = &p;
    }
    std::string out;
    for (const auto &k : kept) out += (out.empty() ? "" : "::") + k;
    return out;
}

std::string written(const Name &n) {
    if (n.parts.empty()) return integer_text(n).empty() ? n.text : integer_text(n);
    const Part &only = n.parts.front();
    // A type of one word or several ("unsigned char", "float const*"): as written.
    if (n.parts.size() == 1 && !only.templated && !only.function && !n.address) return n.text;
    return (n.address ? "&" : "") + written(n.parts) + (n.pointer ? "*" : "");
}

}  // namespace

std::string written_form(const Part &kernel) { return written(std::vector<Part>{kernel}); }

const Part *kernel_part(const Name &n) {
    for (auto p = n.parts.rbegin(); p != n.parts.rend(); ++p)
        if (!is_lambda(*p) && p->id != "operator()" && is_identifier(p->id)) return &*p;
    return nullptr;
}

}  // namespace gmexplain::names
