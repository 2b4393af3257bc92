# Loops: facts hold for every iteration; accumulators, break and continue.
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(dataset, batch_size=8)

for inputs, labels in loader:
    reveal(inputs)  # reveal: tensor {cpu}
    inputs = inputs.to(device)  # reveal: tensor {device}

for index, (inputs, labels) in enumerate(loader):
    reveal(index)  # reveal: scalar
    reveal(labels)  # reveal: tensor {cpu}

for batch in loader:
    reveal(batch)  # reveal: batch {cpu}
    features = batch[0]  # reveal: tensor {cpu}
    moved = batch.to(device)  # reveal: batch {device}

total = torch.tensor(0.0)
for step in range(10):
    total += torch.ones(1, device=device)
reveal(total)  # reveal: tensor {cpu} 0-dim

state = torch.zeros(3)
for step in range(3):
    reveal(state)  # reveal: tensor may{cpu, device}
    state = state.to(device)
reveal(state)  # reveal: tensor may{cpu, device}

losses = []
for step in range(3):
    losses.append(torch.ones(1, device=device).sum())
reveal(losses)  # reveal: sequence[tensor {device} 0-dim]

running = 0.0
for step in range(3):
    running = running + torch.ones(1, device=device)
reveal(running)  # reveal: unknown may{?, device}

found = None
for candidate in [torch.zeros(1), torch.ones(1)]:
    if candidate.sum() > 0:
        found = candidate
        break
reveal(found)  # reveal: tensor {cpu}

value = torch.zeros(1)
while value.sum() < 10:
    if value.sum() > 5:
        continue
    value = value.cuda()
reveal(value)  # reveal: tensor may{"cuda", cpu}

with_else = torch.zeros(1)
for step in range(2):
    pass
else:
    with_else = with_else.cuda()
reveal(with_else)  # reveal: tensor {"cuda"}

# A loop nested in another runs to its own fixpoint in every pass of the outer one: what the
# inner loop makes flows into the outer loop's next iteration.
outputs = [torch.zeros(1, device=device)]
for step in range(3):
    total = torch.zeros(1)
    for part in outputs:
        total = total + part.cpu()
    outputs.append(total)
reveal(outputs)  # reveal: sequence[tensor may{cpu, device}]

# A loop over a dict's items that stores a value back under each key rewrites every element:
# after it, every element is what the loop stored (an empty dict has nothing left behind).
for inputs in torch.utils.data.DataLoader(dataset):
    for key, item in inputs.items():
        inputs[key] = item.to(device)
    reveal(inputs["image"])  # reveal: tensor {device}
    reveal(inputs[("color", 0)])  # reveal: tensor {device}
cached = {"a": torch.zeros(1), "b": torch.ones(1)}
for key in cached:
    cached[key] = cached[key].cuda()
reveal(cached)  # reveal: mapping[tensor {"cuda"}]
# A store under a computed key leaves the entries the code spells by name as they were: such a
# key is most often one of a few the code names (``for key in ("mask",)``), not every one.
partly = {"a": torch.zeros(1), "b": torch.ones(1)}
for key, item in partly.items():
    if key == "a":
        partly[key] = item.cuda()
reveal(partly["b"])  # reveal: tensor {cpu}
renamed = {"a": torch.zeros(1)}
for key in renamed:
    key = key + "_gpu"
    renamed[key] = renamed["a"].cuda()
reveal(renamed["a"])  # reveal: tensor {cpu}
moved = [torch.zeros(1), torch.ones(1)]
for i in range(len(moved)):
    moved[i] = moved[i].to(device)
reveal(moved)  # reveal: sequence[tensor {device}]
early = [torch.zeros(1), torch.ones(1)]
for i, item in enumerate(early):
    if item.sum() > 0:
        break
    early[i] = item.to(device)
reveal(early)  # reveal: sequence[tensor may{cpu, device}]
