from .layers import Block


class Classifier(Block):
    def forward(self, x):
        return self.linear(x)


class PlacedClassifier(Block):
    def __init__(self, width, device):
        super().__init__(width)
        self.to(device)

    def forward(self, x):
        return self.linear(x)
