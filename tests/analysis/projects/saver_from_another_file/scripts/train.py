import torch
from torch import nn

from pkg.tools import EarlyStopping, store_weights


def train(folder, losses):
    model = nn.Linear(3, 3)
    stopper = EarlyStopping()
    for loss in losses:
        stopper(loss, model, folder)
    best = folder + "/checkpoint.pth"
    model.load_state_dict(torch.load(best))  # alone: TDV004


def finetune(path):
    model = nn.Linear(3, 3)
    store_weights(model, path)
    model.load_state_dict(torch.load(path))  # alone: TDV004


def evaluate(folder):
    model = nn.Linear(3, 3)
    model.load_state_dict(torch.load(folder + "/checkpoint.pth"))  # expect: TDV004


def resume(args):
    model = nn.Linear(3, 3)
    store_weights(model, args)  # handed all of ``args``: says nothing of ``args.resume``
    model.load_state_dict(torch.load(args.resume))  # expect: TDV004


def maybe_saved(folder, losses, keep):
    model = nn.Linear(3, 3)
    if keep:
        EarlyStopping()(losses[0], model, folder)
    model.load_state_dict(torch.load(folder + "/checkpoint.pth"))  # expect: TDV004
