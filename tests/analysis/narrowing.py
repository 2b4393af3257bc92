# Narrowing: conditions, boolean operators, conditional expressions, early exits, guard variables.
import torch

use_cuda = torch.cuda.is_available()
reveal(use_cuda)  # reveal: scalar cuda-check
no_cuda = not torch.cuda.is_available()
reveal(no_cuda)  # reveal: scalar no-cuda-check
both = use_cuda and flag
reveal(both)  # reveal: scalar cuda-check
count = torch.cuda.device_count() > 0
reveal(count)  # reveal: scalar cuda-check
backend = dist.get_backend() == "nccl"
reveal(backend)  # reveal: scalar cuda-check


def branches(batch: torch.Tensor):
    if torch.cuda.is_available():
        batch = batch.cuda()
    reveal(batch)  # reveal: tensor may{"cuda", ?}
    return batch


def both_branches(device):
    if device == "cpu":
        data = torch.zeros(3)
    else:
        data = torch.zeros(3, device=device)
    reveal(data)  # reveal: tensor may{?, device}


def chosen_by_ternary(flag):
    value = torch.zeros(1) if flag else torch.zeros(1).cuda()  # reveal: tensor may{"cuda", cpu}


def type_checks(value):
    if isinstance(value, torch.Tensor):
        reveal(value)  # reveal: tensor
    if torch.is_tensor(value) and value.dim() > 1:
        reveal(value)  # reveal: tensor
    reveal(value)  # reveal: unknown


def early_exit(data):
    if not isinstance(data, torch.Tensor):
        return None
    reveal(data)  # reveal: tensor


def walrus(source):
    if (made := torch.zeros(2)) is not None:
        reveal(made)  # reveal: tensor {cpu}


def elif_chain(kind):
    if kind == "a":
        result = torch.zeros(1)
    elif kind == "b":
        result = torch.zeros(1).cuda()
    else:
        raise ValueError(kind)
    reveal(result)  # reveal: tensor may{"cuda", cpu}


def asserted(value):
    assert isinstance(value, torch.Tensor)
    reveal(value)  # reveal: tensor


def none_joins(x: torch.Tensor):
    cache = None
    if x.dim() > 2:
        cache = torch.zeros(2)
    reveal(cache)  # reveal: tensor {cpu}
