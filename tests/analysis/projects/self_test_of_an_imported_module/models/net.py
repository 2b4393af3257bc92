# A model file with a smoke test at its foot: the training script imports the model, so the
# `__main__` block, and the helper only it calls, are what a developer runs by hand.
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(3, 2)

    def forward(self, x):
        return self.layer(x)


def _smoke_test():
    net = Net().cuda()  # alone: TDV001
    return net(torch.randn(4, 3, device="cuda"))  # alone: TDV001


if __name__ == "__main__":
    print(_smoke_test().shape)
    print(torch.zeros(2).cuda())  # alone: TDV001, TDV007
