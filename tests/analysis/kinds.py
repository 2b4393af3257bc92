# Kinds from evidence: factories, functions, methods, constructors, annotations, modules, loaders.
import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.utils.data import DataLoader
from controlnet_aux import HEDdetector
from transformers import AutoModel, AutoTokenizer

a = torch.zeros(3)  # reveal: tensor {cpu}
b = torch.arange(10)  # reveal: tensor {cpu} rank=1
c = torch.tensor([1.0, 2.0])  # reveal: tensor {cpu} rank=1
d = torch.tensor(2.0)  # reveal: tensor {cpu} 0-dim
e = torch.from_numpy(np.ones(3))  # reveal: tensor {cpu}
f = torch.FloatTensor(3, 4)  # reveal: tensor {cpu}
g = torch.Tensor(2, 2)  # reveal: tensor {cpu}
h = Variable(a)  # reveal: tensor {cpu}
i = torch.cuda.FloatTensor(3)  # reveal: tensor {torch.cuda.FloatTensor}
j = torch.exp(a)  # reveal: tensor {cpu}
k = torch.cat([a, j])  # reveal: tensor {cpu}
l = torch.nn.functional.relu(a)  # reveal: tensor {cpu}
m = a.unsqueeze(0)  # reveal: tensor {cpu}
n = a.sum()  # reveal: tensor {cpu} 0-dim
o = a.sum(dim=0)  # reveal: tensor {cpu}
p = a[0]  # reveal: tensor {cpu} maybe-0-dim
p_root = torch.sqrt(p)  # reveal: tensor {cpu} maybe-0-dim
q = a + 1  # reveal: tensor {cpu}
r = a.item()  # reveal: scalar
s = a.numpy()  # reveal: ndarray {cpu}
t = a.tolist()  # reveal: sequence[scalar]
u = torch.zeros_like(a)  # reveal: tensor {cpu}
v = a > 0  # reveal: tensor {cpu}
w = np.zeros(3)  # reveal: ndarray {cpu} rank=1
grid = np.zeros((4, 2))  # reveal: ndarray {cpu} rank=2
x = torch.ones(2, 2).T  # reveal: tensor {cpu}
y = a.data  # reveal: tensor {cpu}
z = torch.max(a, dim=0)  # reveal: sequence(tensor {cpu}, tensor {cpu})

layer = nn.Linear(4, 2)  # reveal: module {cpu}
out = layer(torch.randn(3, 4))  # reveal: tensor {cpu} grad
weight = layer.weight  # reveal: tensor {cpu} grad
pretrained = AutoModel.from_pretrained("bert-base-uncased")  # reveal: module {cpu}
tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")  # reveal: unknown
edges = HEDdetector.from_pretrained("lllyasviel/Annotators")  # reveal: unknown
encoded = tokenizer("hello", return_tensors="pt")  # reveal: mapping[tensor {cpu}]
ids = encoded["input_ids"]  # reveal: tensor {cpu}
mask = encoded.attention_mask  # reveal: tensor {cpu}
ids_only = tokenizer.encode("hello", return_tensors="pt")  # reveal: tensor {cpu}
loader = DataLoader([a, a], batch_size=1)  # reveal: loader
wrapped = nn.DataParallel(layer)  # reveal: module {module:DataParallel}
param = nn.Parameter(torch.zeros(3))  # reveal: tensor {cpu} grad


def annotated(value: torch.Tensor, other):
    reveal(value)  # reveal: tensor
    reveal(other)  # reveal: unknown


def typed_local():
    held: torch.Tensor = make()
    reveal(held)  # reveal: tensor

# One Python number makes a 0-dim tensor, and computing on 0-dim tensors keeps them 0-dim.
size = len(a)
scale = torch.sqrt(torch.tensor(size).float())  # reveal: tensor {cpu} 0-dim
stacked = torch.stack([d, d])  # reveal: tensor {cpu}

# Shapes through indexing: a number takes a dimension away, a slice keeps them all.
steps = torch.Tensor([0.5])  # reveal: tensor {cpu} rank=1
schedule = 1 - torch.cat([steps, torch.linspace(0, 1, 4)]).cpu()  # reveal: tensor {cpu} rank=1
last = schedule[-1]  # reveal: tensor {cpu} 0-dim
tail = schedule[1:]  # reveal: tensor {cpu} rank=1
grid = torch.tensor([[1.0, 2.0], [3.0, 4.0]])  # reveal: tensor {cpu} rank=2
row = grid[0]  # reveal: tensor {cpu} rank=1


def shown_by_module_methods(model, runner):
    model.train(False)
    reveal(model)  # reveal: module {module:model}
    # ``nn.Module.train`` takes ``mode`` alone: a framework's ``train(dataset=...)`` proves nothing.
    runner.train(dataset="data.csv", epochs=2)
    reveal(runner)  # reveal: unknown
