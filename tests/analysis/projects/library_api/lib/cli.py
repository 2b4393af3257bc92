import torch

from .evaluation import evaluate
from .metrics import _score_batches, score


def main(model, batches):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(score(model, batches[0], device=device), evaluate(model, batches[0], device=device))
    return _score_batches(model, batches, device=device)
