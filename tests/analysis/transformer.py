# A small transformer as a model file is written: modules nested five deep, helpers called from
# several depths, a recursive helper, buffers made in reset_parameters() (called by __init__ and
# again later). Its summaries are asked in several orders by tests/test_summary_order.py.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def to_device(batch, device):
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(value, device) for value in batch)
    return batch.to(device)


def rotate_half(x):
    first, second = x.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


def apply_rotary(x, cos, sin):
    return x * cos + rotate_half(x) * sin


class Rotary(nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        self.dim = dim
        self.base = base
        self.reset_parameters()

    def reset_parameters(self):
        inverse = 1.0 / (self.base ** (torch.arange(0, self.dim, 2).float() / self.dim))
        self.register_buffer("inverse", inverse, persistent=False)

    def forward(self, length):
        steps = torch.arange(length, device=self.inverse.device).float()
        freqs = torch.outer(steps, self.inverse)
        reveal(freqs)  # reveal: tensor {module:self}
        return freqs.cos(), freqs.sin()


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.out = nn.Linear(dim, dim)
        self.rotary = Rotary(dim // heads)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        cos, sin = self.rotary(x.shape[1])
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return self.out(F.softmax(scores, dim=-1) @ v)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attention = Attention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))

    def forward(self, x):
        x = x + self.attention(self.norm(x))
        return x + self.mlp(x)


class Encoder(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.block = Block(dim, heads)
        self.norm = nn.LayerNorm(dim)
        self.position = nn.Parameter(torch.zeros(1, 512, dim))

    def forward(self, x):
        x = x + self.position[:, : x.shape[1]]
        return self.block(self.norm(x))


class Classifier(nn.Module):
    def __init__(self, vocab, dim=64, heads=4, classes=10):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = Encoder(dim, heads)
        self.head = nn.Linear(dim, classes)
        self.register_buffer("class_weights", torch.ones(classes))

    def forward(self, tokens):
        hidden = self.encoder(self.embed(tokens))
        reveal(hidden)  # reveal: tensor {module:self} grad
        return self.head(hidden.mean(dim=1))

    def loss(self, tokens, labels):
        logits = self(tokens)
        return F.cross_entropy(logits, labels, weight=self.class_weights)


def train(model, loader, epochs):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(epochs):
        for batch in loader:
            batch = to_device(batch, device)
            loss = model.loss(batch["tokens"], batch["labels"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return model


if __name__ == "__main__":
    model = Classifier(1000)
    tokens = torch.randint(0, 1000, (2, 16))
    logits = model(tokens)  # reveal: tensor {cpu} grad
    train(model, [], 1)
