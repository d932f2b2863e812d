"""gmlab explain inside a running interpreter, as a notebook uses it: the
model is built and warmed up first, and only what runs inside the block is
explained (no restart, no wrapper command):

    python3 examples/explain/outside/torch_session.py      (gmlab on PATH, or $GMLAB)

examples/explain/outside/torch_session.ipynb is the same as a notebook.
"""
import torch

from gmlab import explain

table = torch.randn(8192, 4096, device="cuda")
index = torch.randint(0, 4096, (2048,), device="cuda")
torch.cuda.synchronize()

with explain.session(kernels=3) as s:
    transposed = table.t().contiguous()  # a full transpose through memory
    picked = torch.index_select(table.t(), 0, index)  # rows of a strided view: columns of table

print(s.explanation)
print(s._repr_html_()[:300])
