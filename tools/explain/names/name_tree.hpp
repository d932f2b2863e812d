// A demangled C++ name read into its parts: the components of its qualified
// name, each with its template arguments and whether a parameter list
// follows. Not a C++ parser: it reads what the demangler writes (balanced
// brackets, "::" between components, "void " before a function), which is
// what kernel_name.cpp needs to find what tells one kernel from another.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gmexplain::names {

struct Name;

// One component of a qualified name: "reduce_kernel<512, 1, ...>",
// "direct_copy_kernel_cuda(at::TensorIteratorBase&)", "{lambda(int)#1}",
// "(anonymous namespace)", "operator()() const".
struct Part {
    std::string id;           // without its template arguments and parameters
    std::vector<Name> args;   // its template arguments
    bool templated = false;   // "<...>" followed the id
    bool function = false;    // "(...)" followed: a function, not a type
};

// A whole name, or one template argument.
struct Name {
    std::string text;         // as written, trimmed
    std::vector<Part> parts;  // empty for a value: "128", "2ul", "true", "(curandOrdering)101"
    bool pointer = false;     // a pointer or reference type: "float*", "at::CUDAGeneratorImpl*"
    bool address = false;     // a function's address: "&(float curand_uniform_noargs<...>(...))"
};

// `text` read into its parts; nullopt where its brackets do not balance
// (an operator such as "operator<" in the name, or a cut-off name).
std::optional<Name> read_name(const std::string &text);

// "{lambda(float)#1}" or "{unnamed type#1}": a scope with no name of its own.
bool is_lambda(const Part &p);

}  // namespace gmexplain::names
