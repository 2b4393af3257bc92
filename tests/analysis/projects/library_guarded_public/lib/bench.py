import torch

from .api import normalize


def run():
    if torch.cuda.is_available():
        return normalize(torch.ones(2, 3, device="cuda"))
    return None
