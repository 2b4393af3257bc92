import torch


def batches(n):
    # A whole application: five files or more that nothing installs (fewer may be called from code
    # that is not there).
    return [torch.ones(3) for _ in range(n)]
