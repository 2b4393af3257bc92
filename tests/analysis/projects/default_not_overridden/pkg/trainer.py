import torch


class Trainer:
    def __init__(self, plans, device=torch.device("cuda")):  # expect: TDV001
        self.plans = plans
        self.device = device

    def step(self, batch):
        return batch.to(self.device)
