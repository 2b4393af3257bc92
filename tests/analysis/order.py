# What summaries answer does not depend on the order they are asked in (tests/test_summary_order.py
# asks in several orders): classes named alike, mutual recursion, a mixin, a table read while built.
import torch
import torch.nn as nn


# Two classes named Head: a module at the top, a plain object nested in a function.
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.ones(1))

    def forward(self, x):
        reveal(self.scale)  # reveal: tensor {module:self}
        return x * self.scale


def build_plain():
    class Head:
        def __init__(self):
            self.scale = torch.ones(1)

        def apply(self, x):
            reveal(self)  # reveal: Head
            return x * self.scale

    return Head()


# Two classes named Stats, one per branch: each is its own definition.
if torch.cuda.is_available():

    class Stats:
        def __init__(self):
            self.total = torch.zeros(1)

        def show(self):
            reveal(self)  # reveal: Stats

else:

    class Stats(nn.Module):
        def __init__(self):
            super().__init__()
            self.total = torch.zeros(1)

        def show(self):
            reveal(self)  # reveal: module {module:self}


# Mutual recursion: whichever is asked first, each answers the same.
def ping(x, n):
    if n == 0:
        return x.cpu()
    return pong(x, n - 1)


def pong(x, n):
    if n == 0:
        return torch.zeros(1, device="cuda")
    return ping(x, n - 1)


first = ping(torch.ones(1), 3)  # reveal: tensor may{"cuda", cpu}
second = pong(torch.ones(1), 3)  # reveal: tensor may{"cuda", cpu}


# A mixin of a module class is a module class too, asked before or after the module.
class Scaler:
    def setup(self):
        self.scale = nn.Parameter(torch.ones(1))

    def rescale(self, x):
        reveal(self.scale)  # reveal: tensor {module:self} grad
        return x * self.scale


class Layer(Scaler, nn.Module):
    def __init__(self):
        super().__init__()
        self.setup()
        self.reset()

    # Called by __init__ while the class's table is built, and by forward once it is.
    def reset(self):
        self.bias = self.scale + 1.0

    def forward(self, x):
        self.reset()
        reveal(self.bias)  # reveal: tensor {module:self} grad
        return self.rescale(x) + self.bias
