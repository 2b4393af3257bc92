import torch


def load_speaker(checkpoint, device):
    return torch.load(checkpoint).to(device)  # alone: TDV004
