# Device strings the code builds: a CUDA device whose index is chosen at run time is still CUDA.
import torch

rank = 0
formatted = f"cuda:{rank}"  # reveal: device {f"cuda:{rank}"}
concatenated = "cuda:" + str(rank)  # reveal: device {"cuda:" + str(rank)}
percent = "cuda:%d" % rank  # reveal: device {"cuda:%d" % rank}
formatted_call = "cuda:{}".format(rank)  # reveal: device {"cuda:{}".format(rank)}
x = torch.zeros(3).to(formatted)  # reveal: tensor {formatted}
typed = torch.device(type="cuda", index=rank)  # reveal: device {"cuda"}
typed_last = torch.device(index=rank, type="cuda")  # reveal: device {"cuda"}
with_index = torch.device("cuda", rank)  # reveal: device {"cuda"}
# Strings that only start like a device name something else.
key = f"cuda:{rank}_peak"  # reveal: unknown
prefix = "cuda_" + str(rank)  # reveal: unknown
log_name = "cuda:%d.log" % rank  # reveal: unknown


# A device's type string names where the device is: a tensor moved to it goes to that device's type.
def with_the_layers_device(layer, inputs):
    device = list(layer.parameters())[0].device.type  # reveal: device {module:layer}
    return inputs.to(device)  # reveal: unknown {module:layer}
