import pytest
import torch

from lib.ops import double


def make_input(n):
    return torch.ones(n, device="cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_double():
    assert double(make_input(3)).sum() == 6
