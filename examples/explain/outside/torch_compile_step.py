"""torch.compile on a small model whose forward transposes its input and
gathers columns (a strided view), run as it is:

    gmlab explain -- python3 examples/explain/outside/torch_compile_step.py [default|reduce-overhead]

With "reduce-overhead" Inductor replays the compiled kernels through CUDA
graphs, which explain counts at a graph's second launch. On an H100 this run
ended by SIGSEGV under explain after printing its result (docs/explain.md,
"Not in this version"); GMLAB_EXPLAIN_GRAPHS=0 leaves the graphs uncounted.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "default"
torch.manual_seed(0)
device = "cuda"


class Mixer(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj = torch.nn.Linear(width, width)

    def forward(self, x, index):
        mixed = x.t().contiguous() * 2.0  # a transpose through memory
        picked = torch.index_select(mixed.t(), 0, index)  # rows of a strided view
        return self.proj(picked).sum()


model = Mixer(2048).to(device)
step = torch.compile(model, mode=mode)
x = torch.randn(8192, 2048, device=device)
index = torch.randint(0, 8192, (2048,), device=device)
# Inference: with a backward pending after each call, reduce-overhead's CUDA
# graphs would not be replayed ("pending, uninvoked backwards").
with torch.no_grad():
    for _ in range(10):
        loss = step(x, index)
torch.cuda.synchronize()
print("torch.compile (%s): loss %.3f" % (mode, loss.item()))
