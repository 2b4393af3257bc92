import torch

from .ops import accelerate
from .steps import fast_step


def prepare(batch):
    if torch.cuda.is_available():
        batch = accelerate(batch)
    return batch


def run(batch, args):
    if not torch.cuda.is_available():
        return batch
    return fast_step(accelerate(batch))
