import torch


def load_checkpoint(path):
    return torch.load(path)  # expect: TDV004
