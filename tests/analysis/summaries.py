# Function summaries: a call of a function of this file returns what its body returns for
# these arguments; a method called on self hands back what it assigned to self.
import numpy as np
import torch


def to_tensor(array, device):
    return torch.from_numpy(array).to(device)


def make_pair(n):
    index = torch.from_numpy(np.arange(n))
    weights = torch.ones(n)
    return index, weights


def identity(x):
    return x


def recursive(n):
    if n == 0:
        return torch.zeros(1)
    return recursive(n - 1)


def nothing():
    pass


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
features = to_tensor(np.ones(3), device)  # reveal: tensor {device}
on_cpu = to_tensor(np.ones(3), "cpu")  # reveal: tensor {cpu}
pair = make_pair(4)  # reveal: sequence(tensor {cpu}, tensor {cpu})
index, weights = make_pair(4)
reveal(index)  # reveal: tensor {cpu}
same = identity(features)  # reveal: tensor {device}
deep = recursive(3)  # reveal: tensor {cpu}
empty = nothing()  # reveal: none


class Sampler:
    def __init__(self, size):
        self.size = size
        self.build()

    def build(self):
        self.pool = torch.arange(self.size)

    def pick(self, n):
        return self.pool[:n], torch.rand(n)

    def run(self):
        chosen, noise = self.pick(2)
        reveal(chosen)  # reveal: tensor {cpu} rank=1
        reveal(self.pool)  # reveal: tensor {cpu} rank=1
        return noise


sampler = Sampler(10)
picked = sampler.pick(3)  # reveal: sequence(tensor {cpu} rank=1, tensor {cpu})
ran = sampler.run()  # reveal: tensor {cpu}


class Trainer:
    """A method that assigns an attribute on one branch only may leave it as it was: its caller
    joins the two (on both arms of an ``if``, the method assigns it surely)."""

    def __init__(self, net, use_gpu):
        self.net = net
        self.criterion = torch.nn.MSELoss()
        self.scale = torch.ones(1)
        self.enable(use_gpu)
        reveal(self.scale)  # reveal: tensor may{"cuda", cpu}
        self.reset()
        reveal(self.scale)  # reveal: tensor {cpu}

    def enable(self, flag):
        if flag:
            self.scale = torch.ones(1).cuda()

    def reset(self):
        if self.net is None:
            self.scale = torch.zeros(1)
        else:
            self.scale = torch.ones(1)


class MovesItsModelInPlace:
    """A setup method that moves a module attribute in place (``self.model.cuda()``), on one path:
    after the call the module may be on either device, here and in the other methods."""

    def __init__(self, use_gpu):
        self.model = torch.nn.Linear(3, 1)
        self.setup(use_gpu)
        reveal(self.model)  # reveal: module may{"cuda", cpu}

    def setup(self, flag):
        if flag:
            self.model.cuda()

    def step(self, x):
        reveal(self.model)  # reveal: module may{"cuda", cpu}
