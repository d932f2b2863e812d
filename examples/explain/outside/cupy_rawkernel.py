"""A CuPy RawKernel as user code often writes it: a naive matrix transpose
(reads along rows, writes down columns). gmlab explain runs it as it is:

    gmlab explain -- python3 examples/explain/outside/cupy_rawkernel.py
"""
import cupy as cp

transpose = cp.RawKernel(r'''
extern "C" __global__ void transpose_naive(const float *in, float *out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(long long)c * rows + r] = in[(long long)r * cols + c];
}
''', 'transpose_naive')

rows, cols = 8192, 8192
a = cp.random.random((rows, cols), dtype=cp.float32)
b = cp.empty((cols, rows), dtype=cp.float32)
for _ in range(10):
    transpose((cols // 32, rows // 8), (32, 8), (a, b, cp.int32(rows), cp.int32(cols)))
cp.cuda.Device().synchronize()
assert bool(cp.all(b[:4, :4] == a[:4, :4].T))
print("transpose ok")
