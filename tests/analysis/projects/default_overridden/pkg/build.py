from .trainer import Trainer


def build(plans, device):
    return Trainer(plans, device=device)


def build_many(plans, devices):
    return [Trainer(plans, device) for device in devices]
