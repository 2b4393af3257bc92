from .trainer import Trainer


def build(plans, device):
    return Trainer(plans, device=device)


def build_default(plans):
    return Trainer(plans)
