import torch

from pkg import trainer


def main(model, batch):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return trainer.evaluate(model, batch, device=device)
