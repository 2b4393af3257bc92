# Grad: parameters and module outputs require grad; no_grad, detach and integer results do not.
import torch
import torch.nn as nn
from torchmetrics import ConfusionMatrix, MeanSquaredError
from transformers import AutoModelForCausalLM

model = nn.Linear(4, 2)
x = torch.randn(3, 4)
y = model(x)  # reveal: tensor {cpu} grad
detached = y.detach()  # reveal: tensor {cpu}
index = y.argmax(1)  # reveal: tensor {cpu}
compared = y > 0  # reveal: tensor {cpu}
scaled = y * 2  # reveal: tensor {cpu} grad
summed = y.sum()  # reveal: tensor {cpu} grad 0-dim
made = torch.zeros(3, requires_grad=True)  # reveal: tensor {cpu} grad
param = nn.Parameter(torch.zeros(2))  # reveal: tensor {cpu} grad
frozen = nn.Parameter(torch.zeros(2), requires_grad=False)  # reveal: tensor {cpu}
data = param.data  # reveal: tensor {cpu}

with torch.no_grad():
    quiet = model(x)  # reveal: tensor {cpu}
    quiet_sum = made * 2  # reveal: tensor {cpu}

with torch.inference_mode():
    inferred = model(x)  # reveal: tensor {cpu}

loud = model(x)  # reveal: tensor {cpu} grad


@torch.no_grad()
def evaluate(batch):
    return model(batch)  # reveal: tensor {cpu}


def no_grad_inside(batch):
    with torch.no_grad():
        out = model(batch)
    reveal(out)  # reveal: tensor {cpu}
    return out


# A maximum along a dimension is (values, indices): the values carry grad, the indices never do.
best, best_index = y.max(1)
reveal(best)  # reveal: tensor {cpu} grad
reveal(best_index)  # reveal: tensor {cpu}
top = y.topk(2).indices  # reveal: tensor {cpu}
largest = y.max(dim=1).values  # reveal: tensor {cpu} grad
overall = y.max()  # reveal: tensor {cpu} grad 0-dim
_, by_function = torch.max(y, 1)
reveal(by_function)  # reveal: tensor {cpu}
ranked = torch.sort(y, dim=1)[1]  # reveal: tensor {cpu}
largest_of_two = torch.max(y, scaled)  # reveal: tensor {cpu} grad

# A torchmetrics metric has no parameters: what it returns requires grad only where its inputs do.
confusion = ConfusionMatrix(task="multiclass", num_classes=2)(index, index)  # reveal: output {cpu}
error = MeanSquaredError()(y, scaled)  # reveal: output {cpu} grad


language_model = AutoModelForCausalLM.from_pretrained("gpt2")
# Drawn outputs (generated tokens, samples, predictions) are not differentiated through.
generated = language_model.generate(made)  # reveal: output {cpu}
logits = language_model(made).logits  # reveal: output {cpu} grad
