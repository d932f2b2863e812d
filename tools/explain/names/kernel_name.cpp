#include "explain/names/kernel_name.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

#include "explain/names/name_forms.hpp"
#include "explain/names/name_tree.hpp"

namespace gmexplain {

namespace names {

namespace {

// `s` on one line: control characters as spaces, runs of spaces as one.
std::string one_line(const std::string &s) {
    std::string out;
    for (char c : s) {
        const char d = static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
        if (d != ' ' || (!out.empty() && out.back() != ' ')) out += d;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// "" where the demangler refuses `mangled`.
std::string demangled(const std::string &mangled) {
    int status = 0;
    char *out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !out) return "";
    std::string name(out);
    std::free(out);
    return name;
}

// The last name of a nested mangled name ("_ZN2at6native18elementwise_kernelI..."
// gives "elementwise_kernel"); "" where none can be read.
std::string last_mangled_identifier(const std::string &m) {
    std::string last;
    std::size_t i = 2;  // past "_Z"
    while (i < m.size() && std::strchr("NKVL", m[i])) ++i;
    while (i < m.size()) {
        if (m.compare(i, 2, "St") == 0) {
            i += 2;
            continue;
        }
        if (!std::isdigit(static_cast<unsigned char>(m[i]))) break;
        std::size_t length = 0;
        while (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i]))) length = length * 10 + (m[i++] - '0');
        if (length == 0 || i + length > m.size()) break;
        last = m.substr(i, length);
        i += length;
    }
    return last;
}

// `s` in at most `max` characters: its middle given up for "...", so that
// both the name's start and its end (a closing ">", "_cublas") stay.
std::string bounded(const std::string &s, std::size_t max) {
    if (s.size() <= max) return s;
    if (max <= 3) return s.substr(0, max);
    const std::size_t keep = max - 3, head = (keep * 2 + 2) / 3;
    return s.substr(0, head) + "..." + s.substr(s.size() - (keep - head));
}

enum class Form { kShort, kWritten };

std::string reduced(const std::string &name, Form form, std::size_t max) {
    std::string text = one_line(name);
    if (text.rfind("_Z", 0) == 0) {  // mangled
        const std::string d = one_line(demangled(text));
        if (d.empty()) {
            const std::string last = last_mangled_identifier(text);
            return bounded(last.empty() ? text : last, max);
        }
        text = d;
    }
    const auto tree = read_name(text);
    const Part *kernel = tree ? kernel_part(*tree) : nullptr;
    if (!kernel) return bounded(text, max);
    return bounded(form == Form::kShort ? short_form(*kernel) : written_form(*kernel), max);
}

// "name (2)": the `n`th kernel of one short name, still within `max`.
std::string numbered(const std::string &name, int n, std::size_t max) {
    const std::string suffix = " (" + std::to_string(n) + ")";
    return bounded(name, max > suffix.size() ? max - suffix.size() : 0) + suffix;
}

}  // namespace

}  // namespace names

std::string short_kernel_name(const std::string &name, std::size_t max_chars) {
    return names::reduced(name, names::Form::kShort, max_chars);
}

std::vector<std::string> distinct_short_names(const std::vector<std::string> &kernel_names, std::size_t max_chars) {
    std::vector<std::string> out;
    std::map<std::string, int> uses;
    for (const auto &n : kernel_names) ++uses[out.emplace_back(short_kernel_name(n, max_chars))];
    // Kernels that met are written with their template arguments: both, so
    // that neither reads as the other's plain name.
    for (std::size_t i = 0; i < out.size(); ++i)
        if (uses[out[i]] > 1) out[i] = names::reduced(kernel_names[i], names::Form::kWritten, max_chars);
    // What still meets (alike template arguments, or one name demangled alike from two) is numbered.
    std::map<std::string, int> seen;
    for (auto &s : out)
        if (const int n = ++seen[s]; n > 1) s = names::numbered(s, n, max_chars);
    return out;
}

std::string kernel_library(const std::string &name) {
    std::string lower = name;
    for (char &c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto has = [&](const char *part) { return lower.find(part) != std::string::npos; };
    auto starts = [&](const char *part) { return lower.rfind(part, 0) == 0; };
    if (has("cublas") || starts("sm80_xmma") || starts("sm90_xmma") || starts("sm100_xmma") || starts("ampere_") ||
        starts("volta_") || starts("turing_") || starts("gemv2") || starts("gemvx") || starts("gemmk1"))
        return "cuBLAS";
    if (has("cudnn")) return "cuDNN";
    if (has("cutlass")) return "CUTLASS";
    if (starts("nccl") || has("::nccl")) return "NCCL";
    if (has("curand")) return "cuRAND";
    if (has("cufft") || starts("regular_fft") || starts("vector_fft")) return "cuFFT";
    return "";
}

}  // namespace gmexplain
