# Class state across methods: __init__ is the entry, every method's assignments join in;
# what moves with an nn.Module moves, plain tensor attributes stay where they were made.
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.linear = nn.Linear(size, size)
        self.scale = nn.Parameter(torch.ones(size))
        self.register_buffer("offset", torch.zeros(size))
        self.table = torch.arange(size)
        self.mask = None

    def forward(self, x):
        reveal(x)  # reveal: tensor {module:self}
        reveal(self.linear)  # reveal: module {module:self}
        reveal(self.scale)  # reveal: tensor {module:self} grad
        reveal(self.offset)  # reveal: tensor {module:self}
        reveal(self.table)  # reveal: tensor {cpu} rank=1
        reveal(self.mask)  # reveal: tensor {cpu}
        hidden = self.linear(x)  # reveal: tensor {module:self} grad
        # A part of the module computes where the module is, even fed a CPU tensor (where the
        # call succeeds, the module is on the CPU too).
        reveal(self.linear(self.table))  # reveal: tensor {module:self} grad
        return hidden * self.scale

    def reset(self, size):
        self.mask = torch.ones(size)


encoder = Encoder(4)  # reveal: module {cpu}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
encoder.to(device)
result = encoder(torch.zeros(2, 4, device=device))  # reveal: tensor {device} grad
table = encoder.table  # reveal: tensor {cpu} rank=1
scale = encoder.scale  # reveal: tensor {device} grad


class Holder:
    def __init__(self, model, device="cpu"):
        self.device = torch.device(device)
        self.model = model.to(self.device)
        self.model.eval()

    def predict(self, batch):
        reveal(self.device)  # reveal: device {device}
        inputs = batch.to(self.device)  # reveal: unknown {self.device}
        with torch.no_grad():
            return self.model(inputs)  # reveal: output {self.device}


class Lazy(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = None

    def build(self, size):
        self.proj = nn.Linear(size, 2)

    def forward(self, x):
        if self.proj is None:
            self.build(x.shape[-1])
        reveal(self.proj)  # reveal: module {module:self}
        return self.proj(x)


class Base(nn.Module):
    def forward(self, x):
        mask = self.mask.expand_as(x)  # reveal: tensor {cpu}
        return mask * x


class Child(Base):
    def reset(self, x):
        self.mask = torch.zeros(*x.shape)


# A mixin that a module class inherits: what it stores on self moves with that module.
class AdapterMixin:
    def __init__(self):
        self.adapters = nn.ParameterDict({"a": nn.Parameter(torch.zeros(2, 2))})

    def delta(self, name):
        weight = self.adapters[name]
        return torch.ones(2, 2, device=weight.device) * weight


class AdaptedLinear(nn.Module, AdapterMixin):
    def __init__(self):
        nn.Module.__init__(self)
        AdapterMixin.__init__(self)

    def forward(self, x):
        reveal(self.delta("a"))  # reveal: tensor {module:self}
        return x @ self.delta("a")


wrapped = nn.parallel.DistributedDataParallel(Encoder(2), device_ids=[0])
reveal(wrapped(torch.zeros(2)))  # reveal: tensor {module:DistributedDataParallel} grad


# A property is read like an attribute and computed by its method: a plain class whose device is
# the device of the data it holds.
class DataHolder:
    def __init__(self, data):
        self._data = torch.as_tensor(data).cuda()

    @property
    def data(self):
        return self._data

    @property
    def device(self):
        return self.data.device

    def blank(self):
        reveal(self.data)  # reveal: tensor {"cuda"} maybe-0-dim
        reveal(self.device)  # reveal: device {"cuda"}
        return torch.zeros(2, device=self.device)  # reveal: tensor {"cuda"}


class ListedAndRegistered(nn.Module):
    """Blocks kept in a plain list and registered through an ``nn.ModuleList`` of that same list:
    the same objects, moved with the module. A plain list alone registers nothing."""

    def __init__(self, width):
        super().__init__()
        self.blocks_list = [nn.Linear(width, width) for _ in range(3)]
        self.blocks = nn.ModuleList(self.blocks_list)
        self.loose = [nn.Linear(width, width) for _ in range(3)]

    def forward(self, x):
        for block in self.blocks_list:
            reveal(block)  # reveal: module {module:self}
        for block in self.loose:
            reveal(block)  # reveal: module {cpu}
        return x

# ``model.device`` of a module whose class does not set it (a base of another library does):
# where its parameters are.
from audiotools.ml import BaseModel


class Codec(BaseModel):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.encoder(x)


codec = Codec().to("cpu")
reveal(codec.device)  # reveal: device {cpu}


class Pairs:
    # Attributes assigned together (a tuple target) are learned as those assigned alone.
    def __init__(self):
        self.images, self.labels = torch.rand(8, 16), torch.randint(0, 10, (8,))

    def label(self, i):
        return self.labels[i]  # reveal: tensor {cpu} maybe-0-dim
