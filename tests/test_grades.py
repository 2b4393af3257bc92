"""How sure a finding is: the grade of the weakest link of its evidence (README, "Graded evidence")."""

import textwrap

from flake8_torchdevice.confidence import Confidence
from flake8_torchdevice.engine import check_source
from flake8_torchdevice.settings import Settings

_SWITCHED_ENERGY = """
import torch
from torch import nn


class Switched(nn.Module):
    def __init__(self, lower, upper):
        super().__init__()
        self.lower, self.upper = lower, upper

    def forward(self, distance):
        lower = torch.tensor({data})
        return torch.max(lower, distance) - lower


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
energy = Switched(0.1, 0.5).to(device)(torch.rand(4, device=device))
"""


def _grades(source: str) -> set[tuple[str, str]]:
    checked = check_source(textwrap.dedent(source), Settings(confidence=Confidence.LOW))
    return {(finding.code, finding.confidence) for finding in checked.diagnostics}


def test_a_tensor_made_from_data_the_code_does_not_show_may_be_0_dim():
    # ``torch.tensor(self.lower)`` is a number more often than a list (a CPU 0-dim tensor meets any
    # device): a guess.
    assert _grades(_SWITCHED_ENERGY.format(data="self.lower")) == {("TDV005", "low")}
    assert _grades(_SWITCHED_ENERGY.format(data="[0.1, 0.2, 0.3, 0.4]")) == {("TDV005", "high")}


_SAMPLER = """
import numpy as np
import torch
from torch import nn


class Sampler(nn.Module):
    def __init__(self, betas):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.scales = {scales}

    def forward(self, x):
        return self.scales[-1] * self.net(x)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
samples = Sampler(np.linspace(0.1, 0.2, 3)).to(device)(torch.rand(2, 4, device=device))
"""


def test_a_step_picked_from_a_schedule_whose_rank_the_code_does_not_show_may_be_0_dim():
    # ``scales[-1]`` of a 1-dim schedule is a CPU 0-dim tensor, a number to any device; of a
    # tensor whose rank the code does not show, maybe; of a 2-dim one, a row that must be moved.
    assert _grades(_SAMPLER.format(scales="torch.tensor(1 - np.asarray(betas))")) == {("TDV005", "low")}
    assert _grades(_SAMPLER.format(scales="torch.linspace(0.1, 0.9, 3)")) == set()
    assert _grades(_SAMPLER.format(scales="torch.tensor([[0.1, 0.2, 0.3, 0.4]] * 3)")) == {("TDV005", "high")}


_WRAPPER = """
import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    @property
    def device(self):
        return {device}

    def forward(self, features, continuation):
        expected = torch.tensor(continuation, device=self.device).unsqueeze(-1)
        return torch.gather(self.proj(features), 1, expected)
"""


def test_a_tensor_made_on_the_device_the_code_names_is_not_surely_apart_from_its_model():
    # The class makes its tensors on its own ``device`` on purpose: the CPU here, where it likely
    # runs too; only the assumption that a module's inputs are on a device says otherwise.
    assert _grades(_WRAPPER.format(device='"cpu"')) == {("TDV005", "medium")}


_CACHED_DATASET = """
import torch


class Graphs(torch.utils.data.Dataset):
    def __init__(self, root):
        self.path = root + "/processed.pt"
        self.data = torch.load(self.path)

    def process(self, raw):
        torch.save({data}, self.path)
"""


def test_a_file_the_code_writes_from_values_it_never_places_is_a_guess():
    # A dataset's cache, written by its own ``process()`` from values never shown on a device.
    assert _grades(_CACHED_DATASET.format(data="{'x': torch.tensor(raw), 'version': 3}")) == {("TDV004", "low")}
    # What the code does not show (an optimizer's state: its moments are where the parameters are).
    assert ("TDV004", "low") not in _grades(_CACHED_DATASET.format(data="self.optimizer.state_dict()"))
    # A checkpoint of a model the code moves may hold CUDA tensors: what it reads is not sure either way.
    moved = "torch.nn.Linear(3, 1).to(torch.device('cuda')).state_dict()"
    assert ("TDV004", "low") not in _grades(_CACHED_DATASET.format(data=moved))


_LOADS = """
import torch
from torch import nn

model = nn.Linear(4, 2)
{load}
"""


def test_a_load_is_sure_only_where_the_code_says_it_reads_a_model_s_state():
    """A model's state is what training on a GPU leaves there; a dataset's cache, embeddings or
    fitted statistics are written from data, on the CPU as a rule (round 28: 14 of 21 false loads)."""

    def grade(load: str) -> str:
        checked = check_source(_LOADS.format(load=load), Settings(confidence=Confidence.LOW, runs_without_cuda=True))
        (finding,) = checked.diagnostics
        return finding.confidence

    for model_state in (
        "model.load_state_dict(torch.load(path))",
        'ckpt = torch.load(path)\nmodel.load_state_dict(ckpt["model"])',
        "sd = torch.load(path)",
        "state = torch.load(args.resume)",
        'g = torch.load("generator.pth.tar")',
        "def load_model(path):\n    return torch.load(path)",
        "from torch import load as load_checkpoint\nx = load_checkpoint(path)",
        "x = torch.load(cfg.MODEL.WEIGHTS)",
        "x = torch.load(CHECKPOINT_PATH)",
    ):
        assert grade(model_state) == "high", model_state
    for data in (
        "self.data, self.slices = torch.load(self.processed_paths[0])",
        "id_to_embeddings = torch.load(args.esm_embeddings_path)",
        'Jd_list = torch.load(os.path.join(os.path.dirname(__file__), "Jd.pt"))',
        "def read(path):\n    return torch.load(path)",
        "pretrained = torch.load(emb_file)",  # word vectors: data, whatever ``pretrained`` says
        "norm_params = torch.load(root)",
        # A model loaded beside it says nothing of what else the function loads.
        "def setup(self, stats_file, ckpt):\n    self.mean, self.std = torch.load(stats_file)\n"
        "    self.net.load_state_dict(torch.load(ckpt, map_location='cpu'))",
        # ``self`` of ``self.mean`` is not ``self`` of ``self.weights``, what the model is given.
        "def setup(self, stats_file, net):\n    self.mean, self.std = torch.load(stats_file)\n"
        "    net.load_state_dict(self.weights)",
    ):
        assert grade(data) == "medium", data


_DROPPED_MOVE = """
import torch


class Attack:
    def __init__(self, estimator, batch):
        self.estimator = estimator
        if self.estimator.device.type == "cpu":
            self.delta = torch.zeros(batch).type(torch.FloatTensor)
        else:
            self.delta = torch.zeros(batch).{made}
        self.delta.to(self.estimator.device)
"""


def test_a_dropped_move_of_a_tensor_that_may_be_there_already_is_likely():
    # Made as a CUDA tensor where the target device is not the CPU: the copy is lost only on the
    # paths where it was not there yet.
    assert _grades(_DROPPED_MOVE.format(made="type(torch.cuda.FloatTensor)")) >= {("TDV002", "medium")}
    # Made on the CPU on every path: the tensor stays behind, surely.
    assert ("TDV002", "high") in _grades(_DROPPED_MOVE.format(made="type(torch.FloatTensor)"))


_EXPLAINER = """
import torch
from torch import nn


class {base}:
    def __init__(self, model):
        self.model = model

    def scores(self, inputs):
        self.model.eval()
        first = self.model(inputs[0]).detach().cpu().numpy()
        return first, self.model(inputs[1]).detach().numpy()
"""


def test_the_output_of_a_model_a_plain_class_was_handed_is_likely_on_its_device():
    # A plain class's ``self.model`` came from its caller, as a module parameter does: nothing
    # shows where it is. A module's own submodule moves with it: its output is where the module is.
    assert _grades(_EXPLAINER.format(base="Explainer")) == {("TDV003", "medium")}
    assert _grades(_EXPLAINER.format(base="Explainer(nn.Module)")) == {("TDV003", "high")}


_POINT_GENERATOR = """
import torch


class PointGenerator:
    def grid_priors(self, sizes, device="cuda"):
        return [self.single_level_priors(size, device=device) for size in sizes]

    def single_level_priors(self, size, device="cuda"):
        return torch.arange(size, device=device)
"""


def test_a_default_every_call_the_file_shows_replaces_is_likely():
    # ``single_level_priors`` is called only by its sibling, which passes the device: only a caller
    # the project does not show (a user of the library, another file's ``gen.single_level_priors``)
    # takes its "cuda" default. Nothing here calls ``grid_priors``: its default is what a call gets.
    checked = check_source(textwrap.dedent(_POINT_GENERATOR), Settings(runs_without_cuda=True))
    found = sorted((finding.line, finding.confidence, finding.message) for finding in checked.diagnostics)
    assert [(line, confidence) for line, confidence, _ in found] == [(6, "high"), (9, "medium")]
    cited = "(every call the project shows passes `device`: only a caller it does not show takes the default)"
    assert found[1][2].endswith(cited)


_FILLERS = """
import torch


def make_filler(n):
    def fill(device="cuda"):
        return torch.zeros(n, device=device)

    return fill


def fill_on(n, device):
    def fill(device="cuda"):
        return torch.ones(n, device=device)

    return fill(device)
"""


def test_a_nested_function_is_called_only_by_the_calls_in_the_function_around_it():
    # ``make_filler`` hands its ``fill`` on, never calling it: its callers take the default. The
    # other ``fill``, of another function, is called with the device: a call of another function.
    checked = check_source(textwrap.dedent(_FILLERS), Settings(runs_without_cuda=True))
    assert sorted((finding.line, finding.confidence) for finding in checked.diagnostics) == [(6, "high")]


_DEVICE_OPTION = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda:0")
args = parser.parse_args()
{use}
x = torch.ones(3, device=device)
"""


def test_a_device_option_defaulting_to_cuda_is_likely_unless_a_cuda_check_decides_each_read():
    # ``--device cpu`` runs: whether the default fails rests on how the user runs it.
    likely = {("TDV001", "medium")}
    assert _grades(_DEVICE_OPTION.format(use="device = torch.device(args.device)")) == likely
    taken_where_cuda_is = "device = torch.device(args.device if torch.cuda.is_available() else 'cpu')"
    assert _grades(_DEVICE_OPTION.format(use=taken_where_cuda_is)) == set()
    refused = "if not torch.cuda.is_available():\n    device = 'cpu'\nelse:\n    device = args.device"
    assert _grades(_DEVICE_OPTION.format(use=refused)) == set()
    handed_on = (
        "def main(parser_data):\n    return torch.device(parser_data.device if torch.cuda.is_available() else 'cpu')\n"
    )
    assert _grades(_DEVICE_OPTION.format(use=f"{handed_on}device = main(args)")) == set()
    # Read where CUDA is missing, through a display call, by getattr, or by code the file does not show.
    unchecked = [
        "device = 'cuda:0' if torch.cuda.is_available() else args.device",
        f"{taken_where_cuda_is}\nprint(x.to(args.device))",
        f"{taken_where_cuda_is}\nother = torch.device(getattr(args, 'device'))",
        f"{taken_where_cuda_is}\nfrom trainer import train\ntrain(args)",
    ]
    for use in unchecked:
        assert _grades(_DEVICE_OPTION.format(use=use)) == likely, use


def test_a_load_in_the_cuda_branch_a_default_takes_is_likely():
    """``else`` of ``if cpu:`` with ``cpu=False`` (First Order Motion's demo, round 30): a user
    without CUDA passes the flag and loads with ``map_location``; one who does not has stopped at the
    branch's ``.cuda()`` first. Sure again where the user says the project runs without CUDA."""
    source = (
        "import torch\n\n"
        "def load_checkpoints(path, generator, cpu=False):\n"
        "    if not cpu:\n"
        "        generator.cuda()\n"
        "    if cpu:\n"
        "        checkpoint = torch.load(path, map_location=torch.device('cpu'))\n"
        "    else:\n"
        "        checkpoint = torch.load(path)\n"
        "    generator.load_state_dict(checkpoint['generator'])\n"
    )

    def grades(settings: Settings) -> list[str]:
        found = check_source(source, settings).diagnostics
        return [finding.confidence for finding in found if finding.code == "TDV004"]

    assert grades(Settings(confidence=Confidence.LOW)) == ["medium"]
    assert grades(Settings(confidence=Confidence.LOW, runs_without_cuda=True)) == ["high"]
