import torch


def batch(n):
    # Five files or more that nothing installs: a whole application, whose every call is in it.
    return torch.ones(n, 2)
