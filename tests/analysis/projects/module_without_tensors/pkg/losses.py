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


class Clusterer:
    """A plain class (no module) keeping numbers: nn.Module registers no attribute holding one."""

    def __init__(self, clusters=2):
        self.clusters = clusters

    def __call__(self, embeddings):
        return self.without_diagonal(embeddings.numpy()).argmax(axis=1) % self.clusters

    def without_diagonal(self, matrix):
        matrix[range(min(matrix.shape)), range(min(matrix.shape))] = 0  # an element, no attribute
        return matrix


class LayerHolder:
    """A plain class keeping a layer: not registered either, but calling it runs the layer."""

    def __init__(self):
        self.layer = nn.Linear(3, 3)


class ClusterBackend(nn.Module):
    """Keeps a dict of numbers and an object of a plain class of numbers: moving it moves nothing."""

    def __init__(self, merge_threshold=0.78):
        super().__init__()
        self.config = {"merge_threshold": merge_threshold}
        self.clusterer = Clusterer()

    def forward(self, embeddings):
        return self.clusterer(embeddings)


class HeldLayer(nn.Module):
    """Keeps an object of a plain class that keeps a layer: not read as keeping nothing."""

    def __init__(self):
        super().__init__()
        self.holder = LayerHolder()


class Placed(nn.Module):
    """Keeps the device its methods make tensors on: where it computes is that, not where it moved."""

    def __init__(self, device="cpu", eps=1e-3):
        super().__init__()
        self.device = device
        self.eps = eps


class Tabled(nn.Module):
    """Registers a layer through its own table of modules: it keeps the layer."""

    def __init__(self):
        super().__init__()
        self._modules["proj"] = nn.Linear(3, 3)


def attach(module):
    module.proj = nn.Linear(3, 3)


class SetThroughSetattr(nn.Module):
    """Registers a layer by calling its own ``__setattr__``: it keeps the layer."""

    def __init__(self):
        super().__init__()
        self.__setattr__("proj", nn.Linear(3, 3))


class Attached(nn.Module):
    """Hands itself to a helper that may set anything on it."""

    def __init__(self):
        super().__init__()
        attach(self)
