# Places: moves, device values, defaults, and what a device expression names.
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # reveal: device may{"cuda", cpu}
cpu = torch.device("cpu")  # reveal: device {cpu}
chosen = torch.accelerator.current_accelerator() or torch.device("cpu")  # reveal: device may{cpu, torch.accelerator.current_accelerator()}
on_chosen = torch.zeros(3, device=chosen)  # reveal: tensor {chosen}
x = torch.zeros(3, device=device)  # reveal: tensor {device}
y = torch.zeros(3).to(device)  # reveal: tensor {device}
z = torch.zeros(3).cuda()  # reveal: tensor {"cuda"}
back = z.cpu()  # reveal: tensor {cpu}
onto_cpu = x.to("cpu")  # reveal: tensor {cpu}
onto_cpu_device = x.to(cpu)  # reveal: tensor {cpu}
dtype_only = x.to(torch.float16)  # reveal: tensor {device}
dtype_keyword = x.to(dtype=torch.float16)  # reveal: tensor {device}
like_other = torch.zeros(3).to(x)  # reveal: tensor {device}
like_other_device = torch.zeros(3).to(x.device)  # reveal: tensor {device}
literal = torch.ones(2, device="cuda:1")  # reveal: tensor {"cuda:1"}
index = torch.ones(2).to(0)  # reveal: tensor {cuda:0}
like = torch.ones_like(x)  # reveal: tensor {device}
like_elsewhere = torch.ones_like(x, device="cpu")  # reveal: tensor {cpu}
# It fails on a device, so its result is nowhere: TDV005 reports it once, not what follows it.
mixed = x + torch.zeros(3)  # reveal: tensor
with_scalar = x + torch.tensor(1.0)  # reveal: tensor {device}
module = nn.Linear(3, 1).to(device)  # reveal: module {device}
output = module(x)  # reveal: tensor {device} grad

model = nn.Linear(3, 1)
model.to(device)
reveal(model)  # reveal: module {device}
model.cpu()
reveal(model)  # reveal: module {cpu}

with torch.device("meta"):
    inside = torch.zeros(2)  # reveal: tensor {"meta"}
outside = torch.zeros(2)  # reveal: tensor {cpu}


def placed(tensor_in: torch.Tensor, device):
    moved = tensor_in.to(device)  # reveal: tensor {device}
    gpu = tensor_in.to(f"cuda:{device}")  # reveal: tensor {f"cuda:{device}"}
    unknown = tensor_in.to(target_of(device))  # reveal: tensor
    return moved


def defaults_elsewhere():
    torch.set_default_device(device)
    made = torch.empty(4)  # reveal: tensor {device}

# Keyword arguments unpacked from a mapping may name a device: the place is not shown.
factory_kwargs = {"device": device, "dtype": torch.float32}
unpacked = torch.zeros(3, **factory_kwargs)  # reveal: tensor
layer_unpacked = nn.Linear(3, 3, **factory_kwargs)  # reveal: module

# Conversions that move: the other tensor's type string names its device.
typed_like = torch.zeros(3).type(x.type())  # reveal: tensor {device}
typed_as = torch.zeros(3).type_as(x)  # reveal: tensor {device}
made_like = x.new_zeros(3)  # reveal: tensor {device}
# A type the code does not show to be a dtype may be a type string: where the result is is not known.
cast = torch.zeros(3).type(torch.float16)  # reveal: tensor {cpu}
def typed_by(grid_dtype):
    return torch.zeros(3).type(grid_dtype)  # reveal: tensor
# Python numbers read off a tensor make 0-dim tensors.
length = torch.tensor(x.size(-1))  # reveal: tensor {cpu} 0-dim
count = torch.tensor(x.numel())  # reveal: tensor {cpu} 0-dim
shape = torch.tensor(x.size())  # reveal: tensor {cpu} rank=1
