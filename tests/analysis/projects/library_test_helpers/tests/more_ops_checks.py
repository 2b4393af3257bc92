import pytest
import torch

from tests.ops_checks import make_input
from lib.ops import double


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_double_twice():
    assert double(double(make_input(2))).sum() == 8
