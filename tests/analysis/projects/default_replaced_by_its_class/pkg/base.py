import warnings

import torch


class Pipeline:
    """Falls back to the CPU itself: a CUDA default handed in is a choice it makes safe."""

    def __init__(self, model, device="cuda:0"):
        if "cuda" in device and not torch.cuda.is_available():
            warnings.warn(f"{device} is not available, using the CPU")
            device = "cpu"
        self.device = device
        self.model = model.to(self.device)


class Chosen:
    """Chooses the device by availability, whatever it is handed."""

    def __init__(self, model, device=None):
        device = device if torch.cuda.is_available() else "cpu"
        self.model = model.to(device)


class Plain:
    """Uses the device it is handed as it is."""

    def __init__(self, model, device="cpu"):
        self.model = model.to(device)


class UsesFirst:
    """Places something on the device it is handed before it falls back."""

    def __init__(self, model, device="cpu"):
        self.buffer = torch.zeros(3, device=device)
        if not torch.cuda.is_available():
            device = "cpu"
        self.model = model.to(device)


class Strict:
    """Falls back only when told to: by default, the device it is handed is used as it is."""

    def __init__(self, model, device="cpu", lenient=False):
        if lenient and not torch.cuda.is_available():
            device = "cpu"
        self.model = model.to(device)


class OtherGpu:
    """Without CUDA it picks another device, which is no fallback to the CPU."""

    def __init__(self, model, device="cpu", spare="cuda:1"):
        if not torch.cuda.is_available():
            device = spare
        self.model = model.to(device)


class Permissive:
    """Falls back only when also allowed to: by default, the device it is handed is used as it is."""

    def __init__(self, model, device="cpu", allow_cpu=False):
        if not torch.cuda.is_available() and allow_cpu is True:
            device = "cpu"
        self.model = model.to(device)
