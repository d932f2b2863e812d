// The NVTX ranges open on each thread, kept by the injection library as the
// program's NVTX tool (gmlab explain points NVTX_INJECTION64_PATH at it):
// PyTorch names each operator with a range ("aten::index_select, seq = 12"
// where its NVTX annotation is on, which gmlab's Python start-up hook turns on),
// so the ranges open at a kernel launch name the operator that launched it.
#pragma once

#include <string>
#include <vector>

namespace gmexplain {

// The calling thread's open ranges, outermost first.
const std::vector<std::string> &nvtx_open_ranges();

// From the open ranges: the outermost ATen operator (the one the user's line
// called: "aten::index_select") and the innermost (the one whose kernel it
// is: "aten::gather"), "" if none; the sequence number of the outermost range that carries one (the
// forward operator whose backward shares it), -1 if none; and, on an autograd
// thread, the sequence number of the backward node being evaluated, -1 if none.
struct OperatorContext {
    std::string op, inner_op;
    long long forward_seq = -1;
    long long backward_seq = -1;
    std::string backward_node;  // "MmBackward0"
};
OperatorContext operator_context(const std::vector<std::string> &ranges);

}  // namespace gmexplain
