"""A model step with a bias left on the CPU and predictions logged straight from the graph."""

import torch
from torch import nn

device = torch.accelerator.current_accelerator() or torch.device("cpu")
encoder = nn.Linear(16, 16).to(device)
tokens = torch.randn(4, 16, device=device)

bias = torch.zeros(16)
hidden = encoder(tokens) + bias  # bias stayed on the CPU

history = []
probe = nn.Linear(16, 1)
history.append(probe(torch.randn(2, 16)).numpy())  # still attached to the autograd graph
