"""A small transformer training step in PyTorch, with two common habits:
a transpose made contiguous (x.t().contiguous()) and index_select on a
strided (transposed) tensor. gmlab explain runs it as it is:

    gmlab explain -- python3 examples/explain/outside/torch_training_step.py
"""
import torch

torch.manual_seed(0)
device = "cuda"
batch, seq, width, heads = 16, 256, 512, 8

layer = torch.nn.TransformerEncoderLayer(width, heads, dim_feedforward=4 * width, batch_first=True).to(device)
optimizer = torch.optim.AdamW(layer.parameters(), lr=1e-4)
x = torch.randn(batch, seq, width, device=device)
target = torch.randn(batch, seq, width, device=device)

for step in range(5):
    optimizer.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(layer(x), target)
    loss.backward()
    optimizer.step()

table = torch.randn(8192, 4096, device=device)
for _ in range(5):
    transposed = table.t().contiguous()  # a full transpose through memory
    index = torch.randint(0, 4096, (2048,), device=device)
    picked = torch.index_select(table.t(), 0, index)  # rows of a strided view: columns of table
torch.cuda.synchronize()
print("loss %.4f, transposed %s, picked %s" % (loss.item(), tuple(transposed.shape), tuple(picked.shape)))
