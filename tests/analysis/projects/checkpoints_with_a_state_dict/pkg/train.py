import torch


def save(model, sample, path):
    """A state dict beside one CPU copy: the state dict holds the model's tensors, wherever it is."""
    torch.save({"model": model.state_dict(), "sample": sample.cpu()}, path)


def save_again(model, path):
    torch.save(obj=model.state_dict(), f=path)
