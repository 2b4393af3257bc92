"""Findings that another file of the project decides: tests/analysis/projects/<case>/, each a small
project whose lines say what is reported in project mode (``# expect: TDV001``), what only a
file linted alone reports (``# alone: TDV001``) and what only project mode does (``# project:
TDV006``). See tests/analysis/projects/README.md."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from test_analysis import reveals

from flake8_torchdevice.analysis import analyse
from flake8_torchdevice.cli import main
from flake8_torchdevice.imported import (
    MAKES_CPU_TENSORS,
    MOVES_TO_CUDA,
    MOVES_TO_CUDA_WHEN_AVAILABLE,
    MOVES_TO_ITS_DEVICE_ARGUMENT,
    ImportedHelper,
    ImportedSaver,
)
from flake8_torchdevice.project.beliefs import OPTIMIZER_STATES_AS_THEY_ARE, SAVES_ONLY_CPU_TENSORS, ProjectBeliefs
from flake8_torchdevice.project.calls import read_calls, wanted
from flake8_torchdevice.project.classes import imported_classes
from flake8_torchdevice.project.cuda_tests import runs_with_cuda
from flake8_torchdevice.project.index import index_source
from flake8_torchdevice.project.index_store import decoded_calls, decoded_index, encoded_calls, encoded_index
from flake8_torchdevice.project.inference import checkpoints_saved
from flake8_torchdevice.project.scan import read_project
from flake8_torchdevice.project.snapshot import decoded_beliefs, encoded_beliefs
from runtime_checks.fixtures import expectations

PROJECTS = Path(__file__).resolve().parent / "analysis" / "projects"
CASES = sorted(path for path in PROJECTS.iterdir() if path.is_dir())


def expected(case: Path, marker: str) -> Counter:
    return Counter(
        (path.relative_to(case).as_posix(), line, code)
        for path in sorted(case.rglob("*.py"))
        for (line, code), count in expectations(path.read_text(encoding="utf-8"), marker).items()
        for _ in range(count)
    )


def checked(capsys, case: Path, *args: str) -> Counter:
    # Every rule, as flake8 --select=TDV runs below: rules off by default show facts that cross files too.
    main(
        [
            "check",
            "--runs-without-cuda",
            "--select",
            "TDV",
            "--format",
            "json",
            "--exit-zero",
            *args,
            str(case),
        ]
    )
    reports = json.loads(capsys.readouterr().out)
    return Counter((Path(item["path"]).relative_to(case).as_posix(), item["line"], item["code"]) for item in reports)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_a_project_reports_what_its_lines_expect(case, capsys):
    assert checked(capsys, case, "--no-cache") == expected(case, "expect") + expected(case, "project")


def test_a_library_s_public_default_that_every_project_call_replaces_is_likely(capsys):
    # ``score(..., device="cuda")``: every call in the project passes ``device=``; the library's
    # users, unseen, may not. Whether it fails rests on code that is not there: likely, not sure.
    case = PROJECTS / "library_api"
    options = ["--select", "TDV", "--runs-without-cuda", "--confidence", "medium", "--no-cache", "--format", "json"]
    main(["check", *options, "--exit-zero", str(case)])
    reports = json.loads(capsys.readouterr().out)
    [score] = [item for item in reports if item["path"].endswith("metrics.py")]
    assert score["confidence"] == "medium"
    assert "every call the project shows passes `device`" in score["message"]
    # One the package's __init__ shows its users (``from .evaluation import evaluate``): they call it
    # unseen, as the library means them to, whatever the project's own calls pass: sure.
    [evaluate] = [item for item in reports if item["path"].endswith("evaluation.py")]
    assert evaluate["confidence"] == "high"


def project_reveals(case: Path) -> list[str]:
    """Every ``# reveal:`` line of the case's files whose value, analysed with what the rest of the
    project says of its file (callers, imported classes and helpers), is not the one it states."""
    beliefs = read_project(case.resolve())
    mismatches = []
    for path in sorted(case.rglob("*.py")):
        if "# reveal:" not in path.read_text(encoding="utf-8"):
            continue
        facts = beliefs.for_file(path)

        def analyser(module, facts=facts):
            return analyse(module, frozenset(), facts.callers, facts.classes)

        name = path.relative_to(case).as_posix()
        found = reveals(path, analyser)
        mismatches += [
            f"{name}:{line}: expected {want!r}, revealed {got!r}" for line, want, got in found if want != got
        ]
    return mismatches


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_reveals_resolve_across_files(case):
    """mypy's ``reveal_type`` across files: what a value is where another file decides it."""
    assert not project_reveals(case)


def test_there_are_reveals_across_files():
    assert (
        sum(text.count("# reveal:") for text in (path.read_text(encoding="utf-8") for path in PROJECTS.rglob("*.py")))
        >= 7
    )


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_each_file_alone_reports_what_another_file_settles_too(case, capsys):
    assert checked(capsys, case, "--no-cache", "--no-project") == expected(case, "expect") + expected(case, "alone")


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_flake8_reports_what_the_command_does(case, tmp_path):
    options = ["--select=TDV", "--torchdevice-runs-without-cuda", f"--torchdevice-cache-dir={tmp_path}"]
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *options, "--format=%(path)s:%(row)d:%(code)s", "."],
        capture_output=True,
        text=True,
        cwd=case,
    )
    found = Counter(tuple(line.removeprefix("./").rsplit(":", 2)) for line in result.stdout.splitlines())
    in_project = expected(case, "expect") + expected(case, "project")
    wanted_found = Counter((path, str(line), code) for path, line, code in in_project.elements())
    assert found == wanted_found, result.stderr


def test_an_edited_caller_changes_its_callee_s_findings_on_a_warm_cache(tmp_path, capsys):
    case = tmp_path / "project"
    shutil.copytree(PROJECTS / "default_overridden", case)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert checked(capsys, case, *cache) == Counter()
    assert checked(capsys, case, *cache) == Counter()  # warm
    build = case / "pkg" / "build.py"
    build.write_text(build.read_text().replace("Trainer(plans, device=device)", "Trainer(plans)"))
    assert checked(capsys, case, *cache) == Counter({("pkg/trainer.py", 5, "TDV001"): 1})
    build.write_text(build.read_text().replace("Trainer(plans)", "Trainer(plans, device=device)"))
    assert checked(capsys, case, *cache) == Counter()


SOURCE = """\
import torch
from .ops import step as move
from . import ops


def _check(batch):
    if not torch.cuda.is_available():
        return batch
    return move(batch, device="cuda")


def run(batch, args):
    ops.step(batch) if args.no_cuda else None
    torch.cuda.is_available() and ops.step(*batch)
    handlers = [ops.step]
"""


def test_calls_record_their_guard_their_arguments_and_their_caller():
    found = read_calls(SOURCE, "pkg/train.py", wanted([("pkg.ops", "step")]))
    assert [(site.caller, site.guarded, site.positional, site.keywords, site.unpacks) for site in found.sites] == [
        ("pkg.train._check", True, 1, ("device",), False),
        ("pkg.train.run", False, 1, (), False),
        ("pkg.train.run", True, 0, (), True),
    ]
    assert {site.callee for site in found.sites} == {"pkg.ops.step"}
    assert found.references == ("pkg.ops.step",)
    assert found.exports == (("move", "pkg.ops.step"),)


def test_super_naming_its_own_class_is_no_use_of_the_class():
    # ``super(Block, self).__init__()`` in the class's own body: not a reference that hides its calls.
    source = (
        "import torch\n"
        "class Block(torch.nn.Module):\n"
        "    def __init__(self, device='cuda'):\n"
        "        super(Block, self).__init__()\n"
        "def build(device):\n"
        "    return Block(device=device)\n"
    )
    found = read_calls(source, "pkg/blocks.py", wanted([("pkg.blocks", "Block")]))
    assert found.references == ()
    assert [(site.callee, site.keywords) for site in found.sites] == [("pkg.blocks.Block", ("device",))]


@pytest.mark.parametrize(
    ("test", "runs"),
    [
        ("torch.cuda.is_available()", True),
        ("not torch.cuda.is_available()", False),
        ("args.use_gpu and x", True),
        ("args.no_cuda or x", False),
        ("args.use_gpu or x", None),
        ("not args.no_cuda", True),
        ('device.type != "cuda"', False),
        ("torch.cuda.device_count() == 0", False),
        ("torch.cuda.device_count() > 1", True),
        ("x or not torch.cuda.is_available()", False),
        ("x", None),
        # Compared with a truth value: the name's own polarity, kept or flipped.
        ("torch.cuda.is_available() is False", False),
        ("torch.cuda.is_available() != True", False),
        ("False is torch.cuda.is_available()", False),
        ("torch.cuda.is_available() is not False", True),
        ("args.no_cuda == True", False),
        ("args.no_cuda is False", True),
        ("x is True", None),
    ],
)
def test_which_branch_of_a_test_runs_with_cuda(test, runs):
    assert runs_with_cuda(ast.parse(test, mode="eval").body, {"torch": "torch"}) is runs


def test_only_a_file_that_names_and_imports_a_definition_may_call_it():
    searched = wanted([("pkg.utils", "to_device")])
    assert searched.may_call("from pkg.utils import (\n    to_device,\n)\n")
    assert searched.may_call("from pkg import utils\nutils.to_device(x)\n")
    assert not searched.may_call("def to_device(x):\n    return x\n")  # its own, not the project's
    assert not searched.may_call("model.to_device(x)\n")


def test_definitions_and_calls_round_trip_through_the_index_store():
    source = 'import torch\n\n\nclass T:\n    def __init__(self, a, device="cuda"):\n        pass\n'
    index = index_source(source, "a.py", ".")
    assert [(item.name, item.parameters, item.cuda_defaults) for item in index.definitions] == [
        ("T", ("a", "device"), ("device",))
    ]
    assert decoded_index(json.loads(json.dumps(encoded_index(index)))) == index
    calls = read_calls(SOURCE, "pkg/train.py", wanted([("pkg.ops", "step")]))
    assert decoded_calls(json.loads(json.dumps(encoded_calls(calls)))) == calls


def classes_told(files: dict[str, str]) -> dict[str, dict[str, tuple[bool, bool]]]:
    """What ``imported_classes`` tells each file (path -> spelled name -> (module, places itself))."""
    indexes = [index_source(source, path, "") for path, source in files.items()]
    told = imported_classes((index.path, index.classes) for index in indexes)
    return {
        path: {name: (found.module, found.places_itself) for name, found in classes.classes}
        for path, classes in told.items()
    }


def test_a_class_is_a_module_through_bases_in_other_files_and_re_exports():
    told = classes_told(
        {
            "pkg/__init__.py": "from .models import Net\n",
            "pkg/base.py": "import torch\n\n\nclass Base(torch.nn.Module):\n    pass\n",
            "pkg/models.py": "from . import base\n\n\nclass Net(base.Base):\n    pass\n",
            "train.py": "import pkg\nfrom pkg import Net\n\nmodel = Net()\nother = pkg.Net()\n",
        }
    )
    assert told["train.py"] == {"Net": (True, False), "pkg.Net": (True, False)}
    assert told["pkg/models.py"] == {"base.Base": (True, False)}


def test_a_class_whose_bases_are_all_plain_is_not_a_module_and_an_unknown_base_says_nothing():
    told = classes_told(
        {
            "steps.py": (
                "import abc\nimport somelib\n\n\nclass Step(abc.ABC):\n    def forward(self, x):\n"
                "        return x\n\n\nclass Fn(object):\n    pass\n\n\nclass Other(somelib.Base):\n    pass\n"
            ),
            "run.py": "from steps import Fn, Other, Step\n\nStep()\nFn()\nOther()\n",
        }
    )
    assert told["run.py"] == {"Fn": (False, False), "Step": (False, False)}


def test_a_module_that_takes_a_device_or_moves_itself_places_itself_and_so_do_its_subclasses():
    told = classes_told(
        {
            "nets.py": (
                "import torch.nn as nn\n\n\nclass Placed(nn.Module):\n    def __init__(self, device):\n"
                "        super().__init__()\n\n\nclass Moved(nn.Module):\n    def setup(self):\n"
                "        self.head.cuda()\n\n\nclass Child(Moved):\n    pass\n"
            ),
            "run.py": "from nets import Child, Placed\n\nPlaced(d)\nChild()\n",
        }
    )
    assert told["run.py"] == {"Child": (True, True), "Placed": (True, True)}


def test_a_module_that_keeps_only_numbers_holds_no_tensors_through_its_bases():
    names = ("Charbonnier", "Edge", "Smooth", "Weighted", "Kept", "Optional", "Registers")
    files = {
        "losses.py": (
            "import torch.nn as nn\n\n\nclass Charbonnier(nn.Module):\n    def __init__(self, eps=1e-3):\n"
            "        super().__init__()\n        self.eps = eps ** 2\n\n\nclass Edge(Charbonnier):\n"
            "    kind = 'edge'\n\n\nclass Smooth(nn.MSELoss):\n    pass\n\n\nclass Weighted(nn.CrossEntropyLoss):\n"
            "    pass\n\n\nclass Kept(Charbonnier):\n    def __init__(self, inner):\n        super().__init__()\n"
            "        self.inner = inner\n\n\nclass Optional(nn.Module):\n    def __init__(self, weight=None):\n"
            "        super().__init__()\n        self.weight = weight\n\n\nclass Registers(nn.Module):\n"
            "    def setup(self, n):\n        self.register_buffer('mean', n)\n"
        ),
        "run.py": f"from losses import {', '.join(names)}\n\n" + "".join(f"{name}()\n" for name in names),
    }
    indexes = [index_source(source, path, "") for path, source in files.items()]
    told = imported_classes((index.path, index.classes) for index in indexes)
    holding_none = {name for name, found in told["run.py"].classes if found.holds_no_tensors}
    assert holding_none == {"Charbonnier", "Edge", "Smooth"}


def test_a_cycle_of_bases_decides_nothing():
    told = classes_told(
        {"a.py": "from b import B\n\n\nclass A(B):\n    pass\n", "b.py": "from a import A\n\n\nclass B(A):\n    pass\n"}
    )
    assert told == {}


def test_classes_round_trip_through_the_index_store():
    index = index_source(
        "from .base import Base\n\n\nclass Net(Base):\n    pass\n\n\nNet()\n", "pkg/__init__.py", "pkg"
    )
    assert index.classes.entries and index.classes.exports
    assert decoded_index(json.loads(json.dumps(encoded_index(index)))) == index


def test_an_edited_base_class_changes_the_findings_of_a_file_that_imports_it_on_a_warm_cache(tmp_path, capsys):
    case = tmp_path / "project"
    shutil.copytree(PROJECTS / "module_from_another_file", case)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    in_project = Counter({("scripts/train.py", 19, "TDV006"): 1})
    assert checked(capsys, case, *cache) == in_project
    layers = case / "pkg" / "layers.py"
    layers.write_text(layers.read_text().replace("class Block(nn.Module):", "class Block:"))
    assert checked(capsys, case, *cache) == Counter()
    layers.write_text(layers.read_text().replace("class Block:", "class Block(nn.Module):"))
    assert checked(capsys, case, *cache) == in_project


HELPERS = """
import numpy as np
import torch
from torch import from_numpy


def load(path):
    return torch.from_numpy(np.load(path)).float()


def load_named(path):
    batch = from_numpy(np.load(path))
    return batch


def to_gpu(x):
    if torch.cuda.is_available():
        x = x.cuda()
    return x


def maybe_gpu(x, use_cuda):
    return x.cuda() if use_cuda else x


def always_gpu(x):
    return x.cuda()


def placed(x, device):
    return x.to(device)


def zeros_there(n, device):
    return torch.zeros(n, device=device)


def nothing(x):
    print(x)
"""


def test_the_index_reads_what_helpers_return():
    helpers = {entry.name: entry.returns for entry in index_source(HELPERS, "pkg/data.py", "pkg").classes.helpers}
    assert helpers == {
        "load": MAKES_CPU_TENSORS,
        "load_named": MAKES_CPU_TENSORS,
        "to_gpu": MOVES_TO_CUDA_WHEN_AVAILABLE,
        "maybe_gpu": MOVES_TO_CUDA_WHEN_AVAILABLE,
        "always_gpu": MOVES_TO_CUDA,
        "placed": MOVES_TO_ITS_DEVICE_ARGUMENT,
    }


MOVERS = """
import torch
from torch import Tensor


def recursive(obj, device):
    if torch.is_tensor(obj):
        return obj.to(device)
    elif isinstance(obj, dict):
        return {k: recursive(v, device=device) for k, v in obj.items()}
    elif isinstance(obj, list):
        return [recursive(v, device) for v in obj]
    else:
        return obj


def keyword_only(*, batch, device):
    return {name: value.to(device=device, non_blocking=True) for name, value in batch.items()}


def named(device, batch):
    moved = tuple(part.to(device) for part in batch)
    return moved


def pair(batch, device):
    return batch[0].to(device), batch[1].to(device)


def all_cuda(batch):
    return [t.cuda(non_blocking=True) for t in batch.values()]


def checked_first(x, device):
    if isinstance(x, Tensor):
        return x.to(device)
    return type(x)(checked_first(item, device) for item in x)


def unchanged_sometimes(x, device):
    if device.type == "cuda":
        return x.to(device)
    return x


def device_rebound(x, device=None):
    device = device or torch.device("cuda")
    return x.to(device)


def computed(x, bias, device):
    return x.to(device) + bias


def global_device(x):
    return x.to(DEVICE)


def two_things(x, y, device, flag):
    if flag:
        return x.to(device)
    return y.to(device)


def another_device(x, device, other):
    return {k: recursive(v, other) for k, v in x.items()}


def wrapped(sample, device):
    if len(sample) == 0:
        return {}

    def _move(maybe_tensor, device):
        if torch.is_tensor(maybe_tensor):
            return maybe_tensor.to(device)
        elif isinstance(maybe_tensor, (list, tuple)):
            return [_move(x, device) for x in maybe_tensor]
        return maybe_tensor

    return _move(sample, device)


def handed_on(batch, device):
    return later(batch, device=device)


def later(batch, device):
    return [part.to(device) for part in batch]


def cuda_then_device(batch, device):
    return later(batch, device).cuda()


def appended(batch, device):
    moved = []
    for part in batch:
        moved.append(part)
    return moved


def tensors_only(x, device):
    if isinstance(x, torch.Tensor):
        return x.to(device)
    return x


def one_item(batch, device):
    return batch["image"].to(device)


def filtered(batch, device):
    return {k: v.to(device) for k, v in batch.items() if k != "meta"}


def empty_on_any_path(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    return {}


def parts_of_a_kind_handed_back(batch, device):
    return [tensors_only(item, device) for item in batch]


def runs_off(x, device):
    if isinstance(x, dict):
        return {k: runs_off(v, device) for k, v in x.items()}
    if isinstance(x, torch.Tensor):
        return x.to(device)
"""


def test_the_index_reads_which_argument_a_helper_moves_and_where():
    """project/moves.py: the usual ``to_device`` helpers, as (moved parameter, device parameter,
    kinds). Not read: one item moved (``pair``, ``one_item``), a filtered comprehension, an empty
    result on a path where the batch need not be empty, parts handed to a helper that hands back
    what it does not test for (``another_device``, ``parts_of_a_kind_handed_back``)."""
    helpers = {
        entry.name: (entry.returns, entry.parameters, entry.kinds)
        for entry in index_source(MOVERS, "pkg/placement.py", "pkg").classes.helpers
    }
    assert helpers == {
        "recursive": (MOVES_TO_ITS_DEVICE_ARGUMENT, ((0, "obj"), (1, "device")), ("dict", "sequence", "tensor")),
        "keyword_only": (MOVES_TO_ITS_DEVICE_ARGUMENT, ((-1, "batch"), (-1, "device")), ()),
        "named": (MOVES_TO_ITS_DEVICE_ARGUMENT, ((1, "batch"), (0, "device")), ()),
        "all_cuda": (MOVES_TO_CUDA, ((0, "batch"),), ()),
        "checked_first": (MOVES_TO_ITS_DEVICE_ARGUMENT, ((0, "x"), (1, "device")), ()),
        "wrapped": (MOVES_TO_ITS_DEVICE_ARGUMENT, ((0, "sample"), (1, "device")), ("sequence", "tensor")),
        "handed_on": (MOVES_TO_ITS_DEVICE_ARGUMENT, ((0, "batch"), (1, "device")), ()),
        "later": (MOVES_TO_ITS_DEVICE_ARGUMENT, ((0, "batch"), (1, "device")), ()),
        "tensors_only": (MOVES_TO_ITS_DEVICE_ARGUMENT, ((0, "x"), (1, "device")), ("tensor",)),
        "runs_off": (MOVES_TO_ITS_DEVICE_ARGUMENT, ((0, "x"), (1, "device")), ("dict", "tensor")),
    }


def test_a_file_is_told_what_the_helpers_it_calls_return():
    files = {
        "pkg/data.py": HELPERS,
        "pkg/__init__.py": "from .data import load\n",
        "train.py": "import pkg\nfrom pkg.data import to_gpu, placed\nx = to_gpu(pkg.load('a'))\ny = placed(x, 0)\n",
    }
    indexes = [index_source(source, path, "") for path, source in files.items()]
    told = imported_classes((index.path, index.classes) for index in indexes)
    assert told["train.py"].helpers == (
        ("pkg.load", ImportedHelper(MAKES_CPU_TENSORS, "pkg/data.py")),
        ("placed", ImportedHelper(MOVES_TO_ITS_DEVICE_ARGUMENT, "pkg/data.py", ((0, "x"), (1, "device")))),
        ("to_gpu", ImportedHelper(MOVES_TO_CUDA_WHEN_AVAILABLE, "pkg/data.py")),
    )
    index = indexes[0]
    assert decoded_index(json.loads(json.dumps(encoded_index(index)))) == index


SAVERS = """
import os
import torch


def save_checkpoint(state, folder, *, tag="last"):
    torch.save(state, os.path.join(folder, f"{tag}.pt"))


def save_named(model, name):
    target = name + ".pt"
    torch.save(model.state_dict(), target)


def log_only(model, folder):
    torch.save(model.state_dict(), "weights.pt")


class EarlyStopping:
    def __call__(self, loss, model, path):
        self.keep(model, path)

    def keep(self, model, path):
        torch.save(model.state_dict(), path + "/checkpoint.pth")


class Meter:
    def __call__(self, value):
        return value
"""


def test_the_index_reads_which_callables_save_under_an_argument():
    savers = index_source(SAVERS, "pkg/tools.py", "pkg").classes.savers
    assert {entry.name: entry.saves_under for entry in savers} == {
        "save_checkpoint": ((1, "folder"), (-1, "tag")),
        "save_named": ((1, "name"),),
        "EarlyStopping": ((2, "path"),),
    }


def test_a_file_is_told_which_savers_it_calls_and_the_index_keeps_them():
    files = {"pkg/tools.py": SAVERS, "train.py": "from pkg.tools import EarlyStopping\nstop = EarlyStopping()\n"}
    indexes = [index_source(source, path, "") for path, source in files.items()]
    told = imported_classes((index.path, index.classes) for index in indexes)
    assert told["train.py"].savers == (("EarlyStopping", ImportedSaver(((2, "path"),), "pkg/tools.py")),)
    assert decoded_index(json.loads(json.dumps(encoded_index(indexes[0])))) == indexes[0]
    beliefs = ProjectBeliefs(Path("/project"), classes=told)
    assert decoded_beliefs(Path("/project"), json.loads(json.dumps(encoded_beliefs(beliefs)))) == beliefs


def test_class_flags_and_what_the_project_saves_round_trip_through_the_stores():
    files = {
        "pkg/base.py": (
            "import torch\nimport torch.nn as nn\n\n\nclass Loss(nn.Module):\n    def __init__(self, eps=1e-3):\n"
            "        super().__init__()\n        self.eps = eps\n\n\nclass Pipeline:\n"
            "    def __init__(self, device='cuda'):\n        if not torch.cuda.is_available():\n"
            "            device = 'cpu'\n        self.device = device\n\n\ndef save(x, path):\n"
            "    torch.save(x.cpu(), path)\n"
        ),
        "run.py": "from pkg.base import Loss, Pipeline\n\nLoss()\nPipeline()\n",
    }
    indexes = [index_source(source, path, "pkg") for path, source in files.items()]
    told = imported_classes((index.path, index.classes) for index in indexes)
    found = dict(told["run.py"].classes)
    assert found["Loss"].holds_no_tensors and found["Pipeline"].replaces_without_cuda == ("device",)
    assert decoded_index(json.loads(json.dumps(encoded_index(indexes[0])))) == indexes[0]
    checkpoints = checkpoints_saved(indexes)
    assert checkpoints.verdict == SAVES_ONLY_CPU_TENSORS and checkpoints.evidence[0].line == 19
    beliefs = ProjectBeliefs(Path("/project"), classes=told, checkpoints=checkpoints)
    assert decoded_beliefs(Path("/project"), json.loads(json.dumps(encoded_beliefs(beliefs)))) == beliefs


@pytest.mark.parametrize(
    ("save", "holds"),
    [
        ("sd = net.state_dict()\n    for k, v in sd.items():\n        sd[k] = v.cpu()\n", "saves CPU tensors"),
        ("sd = {k: v.cpu() for k, v in net.state_dict().items()}\n", "saves CPU tensors"),
        ("sd = net.state_dict()\n    for k, v in sd.items():\n        sd[k] = other.cpu()\n", "saves tensors"),
        ("sd = net.state_dict()\n    for k, v in sd.items():\n        print(v.cpu())\n", "saves tensors"),
        ("sd = self.optimizer_G.state_dict()\n", "saves an optimizer's state"),
        ("sd = self.optimized_model.state_dict()\n", "saves tensors"),
        (  # rebound after the copies: what it holds then is not shown
            "sd = net.state_dict()\n    for k, v in sd.items():\n        sd[k] = v.cpu()\n"
            "    sd = other.state_dict()\n",
            "saves tensors",
        ),
        (  # copied only when asked
            "sd = net.state_dict()\n    if other:\n        for k, v in sd.items():\n            sd[k] = v.cpu()\n",
            "saves tensors",
        ),
        ("sd = net.state_dict()\n", "saves tensors"),
    ],
)
def test_the_index_reads_what_a_saved_state_dict_holds(save, holds):
    """KAIR's and BasicSR's savers copy each value of a state dict to the CPU in a loop; an
    optimizer's state is saved as it is, for a resume, not for a model to load."""
    saved = save.split(" = ", 1)[1].strip() if save.count("\n") == 1 and "state_dict()" in save else "sd"
    source = f"import torch\n\n\ndef save(self, net, other, path):\n    {save}    torch.save({saved}, path)\n"
    kinds = [item.kind for item in index_source(source, "pkg/save.py", "pkg").evidence]
    assert kinds == [holds]


def test_copies_made_before_the_block_that_saves_them_are_seen():
    source = (
        "import torch\n\n\ndef save(net, path):\n    sd = net.state_dict()\n    for k, v in sd.items():\n"
        "        sd[k] = v.cpu()\n    with open(path, 'wb') as f:\n        torch.save(sd, f)\n"
    )
    assert [item.kind for item in index_source(source, "pkg/save.py", "pkg").evidence] == ["saves CPU tensors"]


def test_optimizer_states_saved_as_they_are_leave_the_weights_belief_alone():
    files = {
        "pkg/save.py": (
            "import torch\n\n\ndef save_network(net, path):\n    sd = net.state_dict()\n"
            "    for k, v in sd.items():\n        sd[k] = v.cpu()\n    torch.save(sd, path)\n\n\n"
            "def save_optimizer(optimizer, path):\n    torch.save(optimizer.state_dict(), path)\n"
        ),
    }
    checkpoints = checkpoints_saved(index_source(source, path, "pkg") for path, source in files.items())
    assert checkpoints.verdict == SAVES_ONLY_CPU_TENSORS and checkpoints.note == OPTIMIZER_STATES_AS_THEY_ARE
    assert checkpoints.evidence[0].line == 8
