import torch

from pkg import Classifier
from pkg.layers import Stage
from pkg.models import PlacedClassifier


class Normalise(Stage):
    def forward(self, batch):
        return batch / batch.norm()


def train():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Classifier(8)  # reveal: module {cpu}
    model.to(device)
    placed = PlacedClassifier(8, device)  # reveal: module
    features = torch.randn(4, 8)
    return model(features), placed(features)  # project: TDV006


def evaluate():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    step = Normalise()  # reveal: Normalise
    step.to(device)
    features = torch.randn(4, 8)
    return step(features)  # alone: TDV006


def summarise(values):
    from pkg.layers import Standardise

    standardised = Standardise()(torch.tensor(values))  # reveal: output {cpu}
    return standardised.numpy()
