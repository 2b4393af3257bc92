import torch


def conv(device):
    # Reached by a name computed as the program runs (``getattr(layers, name)`` in train.py).
    return torch.ones(3).to(device)  # expect: TDV007


def _build(spec, device):
    # eval() may reach any name of this module.
    return eval(spec)(device)


def norm(device):
    return torch.ones(3).to(device)  # expect: TDV007
