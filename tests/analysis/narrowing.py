# Narrowing: conditions, boolean operators, conditional expressions, early exits, guard variables.
import torch

use_cuda = torch.cuda.is_available()
reveal(use_cuda)  # reveal: scalar cuda-check
no_cuda = not torch.cuda.is_available()
reveal(no_cuda)  # reveal: scalar no-cuda-check
both = use_cuda and flag
reveal(both)  # reveal: scalar cuda-check
count = torch.cuda.device_count() > 0
reveal(count)  # reveal: scalar cuda-check
backend = dist.get_backend() == "nccl"
reveal(backend)  # reveal: scalar cuda-check


def branches(batch: torch.Tensor):
    if torch.cuda.is_available():
        batch = batch.cuda()
    reveal(batch)  # reveal: tensor may{"cuda", ?}
    return batch


def both_branches(device):
    if device == "cpu":
        data = torch.zeros(3)
    else:
        data = torch.zeros(3, device=device)
    reveal(data)  # reveal: tensor may{?, device}


def chosen_by_ternary(flag):
    value = torch.zeros(1) if flag else torch.zeros(1).cuda()  # reveal: tensor may{"cuda", cpu}


def type_checks(value):
    if isinstance(value, torch.Tensor):
        reveal(value)  # reveal: tensor
    if torch.is_tensor(value) and value.dim() > 1:
        reveal(value)  # reveal: tensor
    reveal(value)  # reveal: unknown


def early_exit(data):
    if not isinstance(data, torch.Tensor):
        return None
    reveal(data)  # reveal: tensor


def walrus(source):
    if (made := torch.zeros(2)) is not None:
        reveal(made)  # reveal: tensor {cpu}


def elif_chain(kind):
    if kind == "a":
        result = torch.zeros(1)
    elif kind == "b":
        result = torch.zeros(1).cuda()
    else:
        raise ValueError(kind)
    reveal(result)  # reveal: tensor may{"cuda", cpu}


def asserted(value):
    assert isinstance(value, torch.Tensor)
    reveal(value)  # reveal: tensor


def none_joins(x: torch.Tensor):
    cache = None
    if x.dim() > 2:
        cache = torch.zeros(2)
    reveal(cache)  # reveal: tensor {cpu}


# A test of where a value or a device is: in the branch where it shows the CPU, the value (and
# every value placed on that device) is on the CPU; the join forgets the device on both paths.
def copied_back_when_on_cuda(batch):
    batch = batch.to(device)
    if batch.is_cuda:
        batch = batch.cpu()
    reveal(batch)  # reveal: unknown may{?, cpu}
    return batch


def copied_back_by_device_type(features):
    features = features.to(device)
    if features.device.type == "cuda":
        features = features.cpu()
    reveal(features)  # reveal: unknown may{?, cpu}
    return features


def copied_back_unless_its_device_is_the_cpu_device(features):
    features = features.to(device)
    if features.device != torch.device("cpu"):
        features = features.cpu()
    reveal(features)  # reveal: unknown may{?, cpu}
    return features


# ``torch.is_tensor(x)`` false: ``x`` is no tensor there, whatever device it would have been on.
def copied_back_if_a_tensor_off_the_cpu(waveform):
    waveform = waveform.to(device)
    if torch.is_tensor(waveform) and waveform.device.type != "cpu":
        waveform = waveform.cpu()
    reveal(waveform)  # reveal: unknown may{?, cpu}
    return waveform


def copied_back_unless_the_device_is_the_cpu(device):
    weights = torch.ones(2, device=device)  # reveal: tensor {device}
    if device != "cpu":
        weights = weights.cpu()
    reveal(weights)  # reveal: tensor may{?, cpu}
    return weights


def on_the_cpu_branch(device):
    weights = torch.ones(2, device=device)
    if device == "cpu":
        reveal(weights)  # reveal: tensor {cpu}
        reveal(device)  # reveal: device {cpu}
    if weights.is_cpu:
        reveal(weights)  # reveal: tensor {cpu}
    return weights

# A branch behind a constant false test never runs; the other always does.
switched_off = torch.zeros(1)
if False:
    switched_off = switched_off.cuda()
reveal(switched_off)  # reveal: tensor {cpu}
if 0:
    pass
else:
    switched_off = switched_off.to(device)
reveal(switched_off)  # reveal: tensor {device}


# A flag that defaults to CUDA, turned off where CUDA is missing: a CUDA check afterwards.
def pick(use_cuda=True):
    if not torch.cuda.is_available():
        use_cuda = False
        reveal(use_cuda)  # reveal: scalar cuda-check
    reveal(use_cuda)  # reveal: scalar cuda-check


def flags_set_by_the_check(size):
    fast = False
    if torch.cuda.is_available():
        fast = True
    reveal(fast)  # reveal: scalar cuda-check
    cpu_only = True
    if torch.cuda.is_available():
        cpu_only = False
    reveal(cpu_only)  # reveal: scalar no-cuda-check
    large = True if size > 3 and torch.cuda.is_available() else False
    reveal(large)  # reveal: scalar cuda-check
    small = False if size > 3 and torch.cuda.is_available() else True
    reveal(small)  # reveal: scalar no-cuda-check
    sized = False
    if size > 3:
        sized = True
    reveal(sized)  # reveal: scalar


def stub_that_always_fails():
    batch = torch.zeros(2)
    assert None, "not implemented"
    reveal(batch)  # reveal: unknown


def constants_beside_a_check(batch):
    if torch.cuda.is_available():
        debug = False
        reveal(debug)  # reveal: scalar
    slow = True
    if torch.cuda.is_available():
        slow = False
    reveal(slow)  # reveal: scalar no-cuda-check
