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


class PerceptualLoss(torch.nn.Module):
    # Names itself (Python 2's super), which is no reference from anywhere else.
    def __init__(self, device):
        super(PerceptualLoss, self).__init__()
        self.shift = torch.ones(3).to(device)  # alone: TDV007


class Aggregator(torch.nn.Module):
    def forward(self, x):
        return self.aggregate(x)

    def aggregate(self, x):
        return x + torch.zeros(1).to(x.device)  # expect: TDV007

    def aggregate_full(self, x):
        # A method nothing in the project asks for: what it does is a guess that it runs.
        return x + torch.zeros(1).to(x.device)  # alone: TDV007
