import torch


def load_speaker(path, device):
    return torch.load(path).to(device)  # alone: TDV004
