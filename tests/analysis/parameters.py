# Parameters: nn.Parameter / nn.Buffer values move with their module; a moved or converted copy of
# one is a plain tensor (on an accelerator ``.to()`` returns a new tensor, not a Parameter).
import torch
import torch.nn as nn


class Scaler(nn.Module):
    def __init__(self, device):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(3))
        self.shift = nn.Parameter(torch.zeros(3)).to(device)
        self.kept = nn.Parameter(torch.zeros(3)).to("cpu")

    def forward(self, x):
        reveal(self.scale)  # reveal: tensor {module:self} grad
        reveal(self.shift)  # reveal: tensor {device} grad
        reveal(self.kept)  # reveal: tensor {module:self} grad
        return x * self.scale + self.shift
