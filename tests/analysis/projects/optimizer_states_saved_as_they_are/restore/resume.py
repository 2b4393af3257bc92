import torch


def load_network(network, path):
    network.load_state_dict(torch.load(path))  # alone: TDV004


def load_optimizer(optimizer, path):
    optimizer.load_state_dict(torch.load(path))  # expect: TDV004
