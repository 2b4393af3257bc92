import torch

from pkg import accelerate, place


def main(batch, args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    batch = place(batch, device)
    if args.use_gpu:
        batch = accelerate(batch)
    return batch
