import torch
import torch.nn as nn


class CharbonnierLoss(nn.Module):
    """Keeps a number only: moving it moves nothing."""

    def __init__(self, eps=1e-3):
        super().__init__()
        self.eps = eps
        self.eps_squared = eps * eps

    def forward(self, x, y):
        return torch.sqrt((x - y) ** 2 + self.eps_squared).mean()


class EdgeLoss(CharbonnierLoss):
    """Its base keeps a number, and so does it."""

    reduction = "mean"


class SmoothedMSE(nn.MSELoss):
    """torch's MSELoss holds nothing whatever it is given."""

    def __init__(self, smoothing: float = 0.1):
        super().__init__()
        self.smoothing = smoothing


class WeightedLoss(nn.Module):
    """Keeps a parameter: moving it needs the device."""

    def __init__(self, classes):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(classes))


class Wrapped(nn.Module):
    """Keeps the module it is handed, which may hold parameters."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner


class ClassWeighted(nn.CrossEntropyLoss):
    """torch's CrossEntropyLoss keeps a ``weight`` when given one."""


class PairLoss(nn.Module):
    """Sets a layer and a number in one statement: it keeps the layer."""

    def __init__(self, eps=1e-3):
        super().__init__()
        self.proj, self.eps = nn.Linear(4, 4), eps


class ScaledLoss(nn.Module):
    """Its number default may become a parameter before it is kept."""

    def __init__(self, scale=1.0, learnable=True):
        super().__init__()
        if learnable:
            scale = nn.Parameter(torch.tensor(scale))
        self.scale = scale
