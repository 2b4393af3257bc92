import numpy as np
import torch
from torch import nn

from common.placement import cast, cuda_pair, maybe_moved, on, to_device


def step(batch):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(3, 3).to(device)
    features = to_device(torch.ones(3), device)  # reveal: tensor {device}
    inputs = on(device, inputs={"x": torch.ones(3)})  # reveal: mapping {x: tensor {device}}
    model(inputs["x"])
    return features.numpy()  # project: TDV003


def pairs():
    first, second = cuda_pair([torch.ones(3), torch.ones(3)])
    return first + torch.ones(3)  # project: TDV005


def kept(device):
    half = cast(torch.ones(3), torch.float16)  # reveal: tensor {cpu}
    some = maybe_moved(torch.ones(3), device)  # reveal: unknown
    return half, some


def fixed(batch, device):
    model = nn.Linear(3, 3).to(device)
    features = to_device(torch.ones(3), device)
    return np.asarray(model(features).detach().cpu())
