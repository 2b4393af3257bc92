import torch


def _fused_scale(x):
    scale = torch.ones(x.shape[-1], device="cuda")  # expect: TDV001
    return x * scale
