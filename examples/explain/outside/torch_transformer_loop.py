"""A small transformer language model trained for 60 steps on random tokens:
a longer PyTorch program than the training step, to measure what gmlab
explain adds to a training run:

    gmlab explain -- python3 examples/explain/outside/torch_transformer_loop.py
"""
import torch

torch.manual_seed(0)
device = "cuda"
vocab, width, heads, layers, batch, seq = 8192, 512, 8, 4, 16, 256

embed = torch.nn.Embedding(vocab, width).to(device)
encoder = torch.nn.TransformerEncoder(
    torch.nn.TransformerEncoderLayer(width, heads, dim_feedforward=4 * width, batch_first=True), layers).to(device)
head = torch.nn.Linear(width, vocab).to(device)
parameters = list(embed.parameters()) + list(encoder.parameters()) + list(head.parameters())
optimizer = torch.optim.AdamW(parameters, lr=3e-4)

for step in range(60):
    tokens = torch.randint(0, vocab, (batch, seq + 1), device=device)
    logits = head(encoder(embed(tokens[:, :-1])))
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocab), tokens[:, 1:].reshape(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
torch.cuda.synchronize()
print("loss %.3f after 60 steps" % loss.item())
