import numpy as np
import torch


def load_batch(path):
    """Reads a batch from disk: CPU tensors, wherever the model is."""
    return torch.from_numpy(np.load(path)).float()


def to_gpu(x):
    """Moves to the GPU when there is one."""
    if torch.cuda.is_available():
        x = x.cuda()
    return x


def ready(x, device):
    """Returns ``x`` where ``device`` says: each call substitutes what it passes."""
    return x.to(device)
