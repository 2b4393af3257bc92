import torch
from torch import nn

from utils.tools import KeepBest


def fit(folder, losses):
    model = nn.Linear(2, 1)
    keep_best = KeepBest()
    for loss in losses:
        keep_best(loss, model, folder)
    model.load_state_dict(torch.load(folder + "/checkpoint.pth"))  # alone: TDV004
