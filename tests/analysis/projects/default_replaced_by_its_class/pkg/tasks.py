import torch

from .base import Chosen, OtherGpu, Permissive, Pipeline, Plain, Strict, UsesFirst


class Classifier(Pipeline):
    def __init__(self, model, device: str = "cuda:0"):  # alone: TDV001
        super().__init__(model, device=device)


class Tagger(Chosen):
    def __init__(self, model, device="cuda"):  # alone: TDV001
        super().__init__(model, device=device)


class Ranker(Plain):
    def __init__(self, model, device="cuda"):  # expect: TDV001
        super().__init__(model, device=device)


def build(model):
    return Pipeline(model, device="cuda")  # alone: TDV001


def build_plain(model):
    return Plain(model, device=torch.device("cuda"))  # expect: TDV001


def build_others(model):
    first = UsesFirst(model, device="cuda")  # expect: TDV001
    strict = Strict(model, device="cuda")  # expect: TDV001
    return first, strict, OtherGpu(model, device="cuda")  # expect: TDV001


def build_permissive(model):
    return Permissive(model, device="cuda")  # expect: TDV001
