"""The row softmax of Triton's tutorial, applied to a matrix and to its
transpose (a strided view: each row's elements lie a whole row apart).
gmlab explain runs it as it is:

    gmlab explain -- python3 examples/explain/outside/triton_softmax.py
"""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, in_col_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols * in_col_stride, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x):
    rows, cols = x.shape
    y = torch.empty((rows, cols), device=x.device, dtype=x.dtype)
    softmax_kernel[(rows,)](y, x, x.stride(0), x.stride(1), y.stride(0), cols, BLOCK=triton.next_power_of_2(cols))
    return y


x = torch.randn(4096, 4096, device="cuda")
for _ in range(5):
    a = softmax(x)        # rows are contiguous
    b = softmax(x.t())    # rows of the transpose: strided
torch.cuda.synchronize()
assert torch.allclose(a, torch.softmax(x, dim=1), atol=1e-5)
assert torch.allclose(b, torch.softmax(x.t(), dim=1), atol=1e-5)
print("softmax ok")
