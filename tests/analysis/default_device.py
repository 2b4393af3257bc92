# A legacy default tensor type names a device, like torch.set_default_device. (Functions are
# walked from the CPU default: the module's last default may be set after they are called.)
import torch

torch.set_default_tensor_type(torch.DoubleTensor)
doubles = torch.zeros(2)  # reveal: tensor {cpu}

use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.set_default_tensor_type("torch.cuda.FloatTensor")
else:
    torch.set_default_tensor_type("torch.FloatTensor")
scale = torch.Tensor([640.0, 480.0])  # reveal: tensor may{"cuda", cpu} rank=1


def detect(image):
    boxes = torch.zeros(4)  # reveal: tensor {cpu}
    return boxes
