// What tells one kernel from another in its demangled name, written two ways:
// short (the operator it runs, found inside generic wrappers, or its short
// integers) and, for kernels whose short forms meet, with all of its template
// arguments written out (still without namespaces, parameter lists, data
// carriers and a wrapper's element types). The lists of PyTorch's and cuRAND's
// wrappers, data carriers and element types are here.
#pragma once

#include <string>

#include "explain/names/name_tree.hpp"

namespace gmexplain::names {

// The kernel's own part of a name read whole: the last one that is neither a
// lambda nor a call operator; null where none is a name.
const Part *kernel_part(const Name &n);

// "elementwise_kernel<direct_copy_kernel_cuda>", "transpose<32, 8>", "softmax_kernel".
std::string short_form(const Part &kernel);

// "vectorized_elementwise_kernel<4, FillFunctor<unsigned char>>".
std::string written_form(const Part &kernel);

}  // namespace gmexplain::names
