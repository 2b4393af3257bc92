import torch

from .model import Matcher


def build(weights="weights/outdoor.pth"):
    """An inference-only project: nothing in it saves what it loads."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    matcher = Matcher()
    matcher.load_state_dict(torch.load(weights))  # alone: TDV004
    return matcher.to(device)
