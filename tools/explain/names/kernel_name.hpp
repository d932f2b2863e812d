// Kernel names a person can read. A demangled name can run to thousands of
// characters (PyTorch's copy kernel: 800, its normal-distribution kernel:
// 5,000); what tells kernels apart is the function's own name and the
// operator it was instantiated for, so that is what explain prints. The
// document keeps the whole demangled name and the mangled one beside it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gmexplain {

// The most characters a short name takes, its ellipsis included.
constexpr std::size_t kShortNameMax = 100;

// One line of at most `max_chars` characters for a kernel's name (demangled;
// a mangled one is demangled first, and one that cannot be is reduced to its
// last identifier): the function's own name, without its namespaces or
// parameter list, and of its template arguments what tells kernels apart:
//   - the operator it runs, found inside generic wrappers (PyTorch's
//     gpu_kernel_impl, BinaryFunctor, ReduceOp, lambdas, operator()):
//     "elementwise_kernel<direct_copy_kernel_cuda>", "reduce_kernel<sum_functor>";
//   - else its integer arguments, where they are short: "transpose<32, 8>".
// Plain C names ("softmax_kernel") come back as they are; one that is still
// too long loses its middle to "...".
std::string short_kernel_name(const std::string &name, std::size_t max_chars = kShortNameMax);

// The short names of one explanation's kernels, in the order given (rank
// first, so that the longest-running kernel keeps the plainest name). Where
// two kernels would share a short name, each of them is written with all of
// its template arguments (namespaces, parameter lists and lambdas' enclosing
// scopes still left out: "vectorized_elementwise_kernel<4, FillFunctor<float>, array<char*, 1>>");
// where those are alike too, the later ones are numbered: "name (2)".
std::vector<std::string> distinct_short_names(const std::vector<std::string> &names, std::size_t max_chars = kShortNameMax);

// The NVIDIA library a kernel belongs to, by its name ("cuBLAS", "CUTLASS",
// "cuDNN", "NCCL", "cuRAND", "cuFFT"), "" for the program's own: such a
// kernel is fixed by calling the library differently, not by editing it.
std::string kernel_library(const std::string &name);

}  // namespace gmexplain
