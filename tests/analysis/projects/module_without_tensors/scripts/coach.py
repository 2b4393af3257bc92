import torch

from pkg.losses import CharbonnierLoss


class Coach:
    """Its loss is never moved: it keeps only a number, and computes where its inputs are."""

    def __init__(self, device):
        self.device = device
        self.pixel_loss = CharbonnierLoss()

    def calc_loss(self, y_hat, y):
        loss = torch.zeros(1, device=self.device)
        computed = self.pixel_loss(y_hat, y)  # reveal: output
        loss = loss + computed
        return loss
