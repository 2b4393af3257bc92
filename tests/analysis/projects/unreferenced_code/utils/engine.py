import torch


def train_one_epoch(model, batch, device):
    loss = torch.zeros(1).to(device)  # expect: TDV007
    return loss + model(batch)


def train_one_epoch_old(model, batch, device):
    # Nothing in the project refers to it: what it does is a guess that it runs.
    loss = torch.zeros(1).to(device)  # alone: TDV007
    return loss + model(batch)


class Logger:
    def resume(self, path, device):
        steps = torch.arange(10).to(device)  # alone: TDV007
        return steps, path
