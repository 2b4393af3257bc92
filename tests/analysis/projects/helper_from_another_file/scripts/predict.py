import torch
from torch import nn

from pkg import load_batch, to_gpu
from pkg.data import ready


def predict(path):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(3, 3).to(device)
    batch = load_batch(path)  # reveal: tensor {cpu}
    return model(batch)  # project: TDV006


def scores(path):
    values = to_gpu(torch.rand(3))  # reveal: tensor may{"cuda", cpu}
    return values.numpy()  # project: TDV003


def placed(path, device):
    model = nn.Linear(3, 3).to(device)
    batch = ready(load_batch(path), device)  # reveal: tensor {device}
    return model(batch)
