import torch


def save_network(network, path):
    """Weights are copied to the CPU, value by value, before they are written."""
    state_dict = network.state_dict()
    for key, param in state_dict.items():
        state_dict[key] = param.cpu()
    torch.save(state_dict, path)


def save_optimizer(optimizer, path):
    """An optimizer's state is written as it is: on the GPU where training ran there."""
    torch.save(optimizer.state_dict(), path)
