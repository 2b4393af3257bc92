import torch

from pkg.detection import init_detector


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return init_detector("retinaface", device=device)
