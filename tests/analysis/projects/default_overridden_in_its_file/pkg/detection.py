import torch


def init_detector(name, half=False, device="cuda"):
    return init_retinaface(name, half, device)


def init_retinaface(name, half=False, device="cuda"):
    # Public, but the project calls it in this file alone, and that call passes the device by
    # position. Linted alone it is likely, not sure: its one call seen passes the device.
    model = torch.nn.Linear(2, 2)
    return model.half().to(device) if half else model.to(device)
