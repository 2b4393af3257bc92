import torch

import detection


def detect(weights, frames):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    detector = detection.Detector(weights, device=device)
    return [detector.net(frame.to(device)) for frame in frames]
