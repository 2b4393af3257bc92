# Containers: per-position facts for tuples, element facts for lists and dicts, unpacking.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
gpu = torch.ones(2, device=device)
host = torch.zeros(2)

pair = (gpu, host)  # reveal: sequence(tensor {device}, tensor {cpu})
first = pair[0]  # reveal: tensor {device}
second = pair[1]  # reveal: tensor {cpu}
last = pair[-1]  # reveal: tensor {cpu}
a, b = pair
reveal(a)  # reveal: tensor {device}
reveal(b)  # reveal: tensor {cpu}
head, *rest = [gpu, host, host]
reveal(head)  # reveal: tensor may{cpu, device}
values = [gpu, gpu]  # reveal: sequence(tensor {device}, tensor {device})
element = values[0]  # reveal: tensor {device}
batch = {"images": gpu, "labels": host}  # reveal: mapping {images: tensor {device}, labels: tensor {cpu}}
images = batch["images"]  # reveal: tensor {device}
labels = batch.get("labels")  # reveal: tensor {cpu}
missing = batch["other"]  # reveal: tensor may{cpu, device}
squares = [x * x for x in values]  # reveal: sequence[tensor {device}]
table = {k: v.cpu() for k, v in batch.items()}  # reveal: mapping[tensor {cpu}]
pairs = list(zip(values, values))  # reveal: sequence[sequence(tensor {device}, tensor {device})]
listed = []
listed.append(host)
reveal(listed)  # reveal: sequence[tensor {cpu}]
repeated = [host] * 3  # reveal: sequence[tensor {cpu}]
named = "%s" % [host]  # reveal: unknown
joined = [gpu] + listed  # reveal: sequence[tensor may{cpu, device}]
listed.extend([host])
reveal(listed)  # reveal: sequence[tensor {cpu}]
stacked = torch.stack(values)  # reveal: tensor {device}
joined = torch.cat([gpu, host])  # reveal: tensor
split = torch.split(gpu, 1)  # reveal: sequence[tensor {device}]
stored = {}
stored["x"] = gpu
reveal(stored)  # reveal: mapping {x: tensor {device}}
row = gpu.tolist()  # reveal: sequence[scalar]
for key, value in batch.items():
    reveal(value)  # reveal: tensor may{cpu, device}
models = {"encoder": torch.nn.Linear(2, 2), "decoder": torch.nn.Linear(2, 2)}
models["encoder"].to(device)
reveal(models["encoder"])  # reveal: module {device}
reveal(models["decoder"])  # reveal: module {cpu}
