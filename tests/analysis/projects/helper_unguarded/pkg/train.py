import torch

import pkg.ops as ops


def prepare(batch):
    if torch.cuda.is_available():
        batch = ops.accelerate(batch)
    return batch


def prepare_on_the_cpu(batch):
    if not torch.cuda.is_available():
        batch = ops.accelerate(batch)
    return batch
