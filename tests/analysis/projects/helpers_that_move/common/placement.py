"""Helpers that move what they are given: the index reads where each puts its result, in terms
of the caller's arguments."""

import torch


def to_device(batch, device):
    """Every tensor of a batch (a tensor, or a dict, list or tuple of them) on ``device``."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(value, device) for value in batch)
    return batch


def on(device, *, inputs):
    return {name: tensor.to(device=device) for name, tensor in inputs.items()}


def cuda_pair(pair):
    moved = [part.cuda() for part in pair]
    return moved


def cast(x, dtype):
    return x.to(dtype)


def maybe_moved(x, device):
    """Moves only some of the time: nothing the index can say."""
    if device.type == "cuda":
        return x.to(device)
    return x
