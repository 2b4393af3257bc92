"""Inference helpers with portable and non-portable device handling side by side."""

import torch


def load_model(path, device="cuda:0"):  # a CUDA default breaks every CPU-only caller
    model = torch.load(path, map_location="cuda")
    return model.eval().to(device)


def pick_device():
    # Portable: this is the pattern the linter recommends, and it is not reported.
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def benchmark(model, batch):
    start = torch.cuda.Event(enable_timing=True)  # needs a GPU, unguarded
    output = model(batch.cuda())
    torch.cuda.synchronize()
    return output, start


def normalize(image: torch.Tensor, mean: torch.Tensor) -> torch.Tensor:
    image.to(mean.device)  # result discarded: image is still where it was
    return image - mean
