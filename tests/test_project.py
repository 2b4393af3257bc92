"""The project layer: its layout, what the index reads from each file, and the beliefs it infers."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from flake8_torchdevice.project.beliefs import (
    NO_ACCELERATOR,
    NO_BELIEF,
    NO_FACTS,
    REQUIRES_CUDA,
    SUPPORTS_CPU,
    UNKNOWN,
)
from flake8_torchdevice.project.cache import FORMAT
from flake8_torchdevice.project.evidence import (
    ASKS_FOR_A_GPU,
    BENCHMARKS_THE_GPU,
    CALLS_A_GPU_ONLY_API,
    CPU_DEFAULT,
    CPU_LOAD,
    CPU_OPTION,
    CUDA_EXTENSION,
    CUDA_ONLY_IMPORT,
    DEVICE_OPTION,
    DISTRIBUTED_STOPS_WITHOUT_CUDA,
    FALLBACK,
    KERNELS_ON_IMPORT,
    NAMED_FOR_THE_GPU,
    NCCL_ONLY,
    NCCL_PROGRAM,
    SAYS_IT_NEEDS_CUDA,
    SKIPS_WITHOUT_CUDA,
    STOPS_WITHOUT_CUDA,
    TRAINS_ON_GPUS,
    UNCHECKED_CUDA,
    Evidence,
)
from flake8_torchdevice.project.index import FileIndex, index_source
from flake8_torchdevice.project.inference import decide, infer, words_outside_the_code
from flake8_torchdevice.project.layout import find_root, is_satellite, package_of, project_files
from flake8_torchdevice.project.nodes import descendants, own_nodes
from flake8_torchdevice.project.references import FileReferences, ProjectReferences
from flake8_torchdevice.project.report import beliefs_of, project_roots
from flake8_torchdevice.project.scan import index_file, is_library, read_project


def kinds(source: str, path: str = "train.py") -> list[str]:
    return [item.kind for item in index_source(textwrap.dedent(source), path, ".").evidence]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n', [FALLBACK]),
        ("import torch as t\nd = t.device('cuda' if t.cuda.is_available() else 'cpu')\n", [FALLBACK]),
        ("import torch\nif torch.cuda.is_available():\n    d = 'cuda'\nelse:\n    d = 'cpu'\n", [FALLBACK]),
        (  # a device picker's early return, then the CPU for everything else
            "import torch\ndef pick():\n    if torch.cuda.is_available():\n        return 'cuda'\n"
            "    if torch.backends.mps.is_available():\n        return 'mps'\n    return torch.device('cpu')\n",
            [FALLBACK],
        ),
        ('import torch\nstate = torch.load("w.pt", map_location="cpu")\n', [CPU_LOAD]),
        ("import torch\nm = torch.load(p, map_location=lambda storage, loc: storage)\n", [CPU_LOAD]),
        ('parser.add_argument("--no-cuda", action="store_true")\n', [CPU_OPTION]),
        ('parser.add_argument("--cuda", action="store_true")\n', [CPU_OPTION]),  # CUDA is opt-in
        ('parser.add_argument("--cuda", action="store_false")\n', [CPU_OPTION]),  # the flag turns it off
        ('parser.add_argument("--cuda", action="store_true", default=True)\n', []),  # true either way
        ('parser.add_argument("--ngpu", type=int, default=1, help="0 = CPU.")\n', [CPU_OPTION]),
        ('parser.add_argument("--gpu_ids", default="0", help="e.g. 0,1,2. use -1 for CPU")\n', [CPU_OPTION]),
        ('parser.add_argument("--gpu", default="0", help="use \'-1\' for CPU")\n', [CPU_OPTION]),
        ('parser.add_argument("--workers", type=int, help="CPU workers (0 = main process)")\n', []),
        ('parser.add_argument("--threads", type=int, help="0 = CPU count")\n', []),
        ('parser.add_argument("--device", default="cpu")\n', [CPU_DEFAULT]),
        ('def embed(x, device="cpu"):\n    return x\n', [CPU_DEFAULT]),
        # Data moved only where CUDA is: elsewhere it stays on the CPU, a fallback without an else.
        ("import torch\nx = torch.ones(2)\nif torch.cuda.is_available():\n    x = x.cuda()\n", [FALLBACK]),
        ("import torch\nif torch.cuda.is_available():\n    torch.cuda.manual_seed(0)\n", []),
        # ... not where the else stops the program, nor under a count of GPUs (several of them).
        (
            "import torch\nif torch.cuda.is_available():\n    m = m.cuda()\nelse:\n    raise SystemExit('GPU')\n",
            [],
        ),
        ("import torch\nif torch.cuda.device_count() > 1:\n    m = torch.nn.DataParallel(m).cuda()\n", []),
        # A CPU build of faiss has no GPU resources: a ``try`` catching that has a CPU path.
        ("import faiss\ntry:\n    res = faiss.StandardGpuResources()\nexcept AttributeError:\n    res = None\n", []),
        ("import faiss\nresources = faiss.StandardGpuResources()\n", [CALLS_A_GPU_ONLY_API]),
        ("import faiss\nkmeans = faiss.Kmeans(64, 8, gpu=True)\n", [CALLS_A_GPU_ONLY_API]),
        ("import faiss\nkmeans = faiss.Kmeans(64, 8)\n", []),
        # Where evaluation results are gathered (mmengine's metrics), not where the code runs.
        ('def __init__(self, collect_device="cpu"):\n    pass\n', []),
        (
            "import pytest, torch\n"
            "@pytest.mark.skipif(not torch.cuda.is_available(), reason='gpu')\ndef test(): pass\n",
            [SKIPS_WITHOUT_CUDA],
        ),
        ("import pytest, torch\nif not torch.cuda.is_available():\n    pytest.skip('gpu')\n", [SKIPS_WITHOUT_CUDA]),
        ("import sys, torch\nif not torch.cuda.is_available():\n    sys.exit('needs a GPU')\n", [STOPS_WITHOUT_CUDA]),
        ("import torch\nassert torch.cuda.is_available()\n", [STOPS_WITHOUT_CUDA]),
        ("import torch\nif torch.cuda.device_count() == 0:\n    raise SystemExit(1)\n", [STOPS_WITHOUT_CUDA]),
        (  # a comparison with False is a negation
            "import torch\nif torch.cuda.is_available() is False:\n    raise EnvironmentError('no GPU')\n",
            [STOPS_WITHOUT_CUDA],
        ),
        ('import torch.distributed as dist\ndist.init_process_group(backend="nccl")\n', [NCCL_ONLY, NCCL_PROGRAM]),
        (  # under a condition of the program's own: only some runs set it up
            'import torch, sys\nif len(sys.argv) > 2:\n    torch.distributed.init_process_group(backend="nccl")\n',
            [NCCL_ONLY],
        ),
        (  # in the program's own code (RIFE's train.py): every run of the file sets it up
            'import torch\nif __name__ == "__main__":\n    torch.distributed.init_process_group(backend="nccl")\n',
            [NCCL_ONLY, NCCL_PROGRAM],
        ),
        (  # Gloo on Windows only (NVlabs' edm): NCCL on every Linux machine, GPU or not
            "import os, torch\ndef init():\n    backend = 'gloo' if os.name == 'nt' else 'nccl'\n"
            "    torch.distributed.init_process_group(backend=backend, init_method='env://')\n",
            [NCCL_ONLY],
        ),
        (  # chosen by CUDA's availability: Gloo where there is no GPU
            "import torch\nbackend = 'nccl' if torch.cuda.is_available() else 'gloo'\n"
            "torch.distributed.init_process_group(backend)\n",
            [],
        ),
        (  # an attribute set just before (BLIP's ``init_distributed_mode``)
            "import torch\ndef init(args):\n    args.dist_backend = 'nccl'\n"
            "    torch.distributed.init_process_group(backend=args.dist_backend)\n",
            [NCCL_ONLY],
        ),
        (  # after a return for single-process runs: NCCL for the distributed mode only (DETR's shape)
            "import os, torch\ndef init_distributed_mode(args):\n    if 'RANK' not in os.environ:\n"
            "        args.distributed = False\n        return\n    args.dist_backend = 'nccl'\n"
            "    torch.distributed.init_process_group(backend=args.dist_backend)\n",
            [],
        ),
        (  # where a tensor already is, not where to run (sam2's distributed helpers)
            "import torch\ndef label(t):\n    return 'cpu' if not t.is_cuda else 'gpu'\n",
            [],
        ),
        (  # the last branch of an elif chain (CUDA, else MPS, else the CPU)
            "import torch\nif torch.cuda.is_available():\n    d = torch.device('cuda')\n"
            "elif torch.backends.mps.is_available():\n    d = torch.device('mps')\n"
            "else:\n    d = torch.device('cpu')\n",
            [FALLBACK],
        ),
        (  # rebound before the call: what the last binding holds
            "import torch\ndef init(args):\n    backend = 'nccl'\n    backend = args.backend\n"
            "    torch.distributed.init_process_group(backend)\n",
            [],
        ),
        ('import pytorch_lightning as pl\ntrainer = pl.Trainer(accelerator="gpu", devices=2)\n', [TRAINS_ON_GPUS]),
        ("from pytorch_lightning import Trainer\ntrainer = Trainer(gpus=1)\n", [TRAINS_ON_GPUS]),
        # co-tracker: a subclass of LightningLite, launched for GPUs.
        ('class Lite(LightningLite):\n    pass\nLite(accelerator="cuda", strategy="ddp").run()\n', [TRAINS_ON_GPUS]),
        ("from pytorch_lightning import Trainer\ntrainer = Trainer(gpus=0)\n", []),
        ('from pytorch_lightning import Trainer\ntrainer = Trainer(accelerator="auto")\n', []),
        ('import torch\nif torch.cuda.is_available():\n    trainer = Trainer(accelerator="gpu")\n', []),
        ("import apex\n", [CUDA_ONLY_IMPORT]),
        ("import gym\nimport isaacgym\n", [CUDA_ONLY_IMPORT]),
        (
            "from torch.utils.cpp_extension import load\nC = load('ops', sources=['a.cpp', 'a.cu'])\n",
            [CUDA_EXTENSION, KERNELS_ON_IMPORT],
        ),
        (
            "from torch.utils.cpp_extension import load\ndef build():\n    return load('ops', sources=['a.cu'])\n",
            [CUDA_EXTENSION],
        ),
        ("from torch.utils.cpp_extension import CUDAExtension\nx = CUDAExtension('ops', ['a.cu'])\n", [CUDA_EXTENSION]),
        ('"""Benchmarks. Requires a CUDA GPU."""\n', [SAYS_IT_NEEDS_CUDA]),
    ],
)
def test_the_index_reads_each_kind_of_evidence(source, expected):
    assert kinds(source) == expected


_PARSES_CUDA = 'parser.add_argument("--cuda", action="store_true")\nopt = parser.parse_args()\n'


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (_PARSES_CUDA + "model = Net()\nif opt.cuda:\n    model = model.cuda()\n", [CPU_OPTION]),
        (_PARSES_CUDA + 'use = getattr(opt, "cuda")\n', [CPU_OPTION]),
        (_PARSES_CUDA + "train(**vars(opt))\n", [CPU_OPTION]),  # read as a keyword, elsewhere
        ('parser.add_argument("--cuda", action="store_true")\n', [CPU_OPTION]),  # a parser for others
        # Parsed, printed, never read: the script's CUDA use is not the user's choice.
        (_PARSES_CUDA + "print(vars(opt))\nok = torch.cuda.is_available()\n", []),
        ('parser.add_argument("--no-cuda", dest="gpu_off", action="store_true")\nargs = parser.parse_args()\n', []),
    ],
)
def test_a_cpu_option_the_script_never_reads_is_no_evidence(source, expected):
    assert kinds(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        # A feature that refuses to run without CUDA, inside a library function: a careful check,
        # not a program that stops.
        "import torch\ndef flash(q):\n    if not torch.cuda.is_available():\n        raise RuntimeError('CUDA')\n",
        # An option the user chose is no availability check.
        "def main(args):\n    if not args.cuda:\n        raise ValueError('pass --cuda')\n",
        # An assertion about a device the code holds.
        "def f(device):\n    assert device.type == 'cuda'\n",
        # NCCL chosen only when CUDA is there.
        "import torch, torch.distributed as d\nd.init_process_group('nccl' if torch.cuda.is_available() else 'gloo')\n",
        "import torch, torch.distributed as d\nif torch.cuda.is_available():\n    d.init_process_group('nccl')\n",
        # An optional CUDA-only import.
        "try:\n    import apex\nexcept ImportError:\n    apex = None\n",
        # A C++ extension, no CUDA.
        "from torch.utils.cpp_extension import load\n_C = load('ops', sources=['ops.cpp'])\n",
        # A CUDA branch that returns, then a return of something other than the CPU.
        "import torch\ndef pick():\n    if torch.cuda.is_available():\n        return 'cuda'\n    return None\n",
        # A docstring listing other facts, one of them about CUDA.
        '"""A value may require grad, is 0-dim, a CUDA check it encodes."""\n',
        # Not Python.
        "def broken(:\n",
    ],
)
def test_the_index_does_not_take_these_for_evidence(source):
    assert kinds(source) == []


def test_a_network_put_back_on_cuda_after_a_save_is_no_fallback():
    # pix2pix's save_network: copied to the CPU to be saved, then put back on CUDA where it is.
    saves = (
        "import torch\ndef save(net, path, gpu_ids):\n    torch.save(net.cpu().state_dict(), path)\n"
        "    if len(gpu_ids) and torch.cuda.is_available():\n        net.cuda(gpu_ids[0])\n"
    )
    assert kinds(saves) == ["saves CPU tensors"]
    # Moving to CUDA only where it is, what was never copied to the CPU, is one.
    assert kinds("import torch\ndef place(net):\n    if torch.cuda.is_available():\n        net.cuda()\n") == [
        "falls back to the CPU"
    ]


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("chapter04/4.6_use-gpu.ipynb", True),
        ("8.4_multiple-gpus.ipynb", True),
        ("lessons/cuda_basics.ipynb", True),
        ("lessons/pycuda_helpers.ipynb", False),
        ("gpuless.ipynb", False),
        ("train.ipynb", False),
        ("tests/test_cuda_ops.py", False),  # a script's name says less
        ("scripts/multi_gpu_train.py", False),
    ],
)
def test_a_notebook_named_for_the_gpu_requires_it_alone(path, named):
    source = "import torch\nx = torch.ones(3).cuda()\n"
    assert (NAMED_FOR_THE_GPU in kinds(source, path)) is named


_MEASURES_THE_GPU = """
import torch

model = torch.nn.Linear(8, 8).to("cuda")
torch.cuda.synchronize()
print(torch.cuda.get_device_name(), torch.cuda.max_memory_allocated())
"""
_MEASURES_WHERE_IT_RUNS = _MEASURES_THE_GPU.replace('"cuda"', '"cuda" if torch.cuda.is_available() else "cpu"')


@pytest.mark.parametrize(
    ("path", "source", "benchmarks"),
    [
        ("benchmark/fwdbench.py", _MEASURES_THE_GPU, True),
        ("scripts/profile_memory.py", _MEASURES_THE_GPU, True),
        ("train.py", _MEASURES_THE_GPU, False),  # a training script's log of its GPU: the bug TDV001 reports
        ("benchmark/fwdbench.py", _MEASURES_WHERE_IT_RUNS, False),  # it falls back to the CPU
        ("benchmark/fwdbench.py", "import torch\nx = torch.ones(3).cuda()\n", False),  # it measures nothing
        ("user_profiles/store.py", _MEASURES_THE_GPU, False),  # a path that names no benchmark
        ("tools/workbench.py", _MEASURES_THE_GPU, False),
        # Peak memory alone is 0 without CUDA, not a failure: a log of it says nothing.
        ("benchmark/memory.py", "import torch\nprint(torch.cuda.max_memory_allocated())\n", False),
    ],
)
def test_a_benchmark_that_measures_the_gpu_requires_it_alone(path, source, benchmarks):
    assert (BENCHMARKS_THE_GPU in kinds(source, path)) is benchmarks


@pytest.mark.parametrize(
    ("metadata", "asks"),
    [
        ({"accelerator": "GPU", "colab": {}}, True),  # Colab's "Change runtime type: GPU"
        ({"colab": {"gpuType": "T4"}}, True),
        ({"kernelspec": {"language": "python"}}, False),
    ],
)
def test_a_notebook_that_asks_its_host_for_a_gpu_requires_it_alone(tmp_path, metadata, asks):
    cell = {"cell_type": "code", "source": ["import torch\n", "x = torch.ones(3).cuda()\n"], "metadata": {}}
    notebook = write(tmp_path, "explain.ipynb", json.dumps({"cells": [cell], "metadata": metadata}))
    kinds_found = [item.kind for item in index_file(tmp_path, notebook).evidence]
    assert (ASKS_FOR_A_GPU in kinds_found) is asks


def test_every_import_counts_where_two_share_a_local_name():
    """benchmarking-gnns' scripts import ``train_epoch_dense as train_epoch`` in one branch and
    ``train_epoch_sparse as train_epoch`` in the other: both functions are referred to."""
    source = """
    def main(dense):
        if dense:
            from train.loops import train_epoch_dense as train_epoch
        else:
            from train.loops import train_epoch_sparse as train_epoch
        return train_epoch
    """
    imported = index_source(textwrap.dedent(source), "main.py", ".").references.imported
    assert {"train.loops.train_epoch_dense", "train.loops.train_epoch_sparse"} <= set(imported)


def test_stops_in_tests_are_skips_by_another_name():
    source = "import torch\nif not torch.cuda.is_available():\n    raise RuntimeError('no GPU')\n"
    assert kinds(source, "tests/test_kernels.py") == []
    assert kinds(source, "launch.py") == [STOPS_WITHOUT_CUDA]


def test_a_stop_in_a_function_that_sets_up_a_process_group_refuses_that_mode_only():
    # A multi-GPU training script's ``main`` stops without CUDA, then sets up its process group;
    # the package's single-GPU scripts beside it fall back to the CPU.
    source = (
        "import torch\n\n\ndef main(args):\n    if torch.cuda.is_available() is False:\n"
        "        raise EnvironmentError('no GPU')\n    init_distributed_mode(args=args)\n"
    )
    assert kinds(source, "train_multi_gpu_using_launch.py") == [DISTRIBUTED_STOPS_WITHOUT_CUDA]
    assert kinds(source.replace("init_distributed_mode(args=args)", "train(args)"), "train.py") == [STOPS_WITHOUT_CUDA]
    # Set up only in the distributed mode: the stop refuses the single-process run too.
    optional = source.replace("    init_distributed_mode", "    if args.distributed:\n        init_distributed_mode")
    assert kinds(optional, "train.py") == [STOPS_WITHOUT_CUDA]


def test_a_stop_in_a_distributed_set_up_refuses_that_mode_only():
    # Coqui TTS: ``init_distributed`` asserts CUDA; the rest of the package falls back to the CPU.
    source = "import torch\n\n\ndef init_distributed(rank):\n    assert torch.cuda.is_available(), 'needs CUDA'\n"
    assert kinds(source, "utils/distribute.py") == [DISTRIBUTED_STOPS_WITHOUT_CUDA]
    assert kinds(source.replace("init_distributed", "main"), "launch.py") == [STOPS_WITHOUT_CUDA]
    assert decide(evidence(FALLBACK, DISTRIBUTED_STOPS_WITHOUT_CUDA)).verdict == UNKNOWN
    assert decide(evidence(DISTRIBUTED_STOPS_WITHOUT_CUDA)).verdict == REQUIRES_CUDA
    # build-nanogpt: the module-level ``if ddp:`` branch asserts CUDA; the other picks a device.
    script = "import torch\nif ddp:\n    assert torch.cuda.is_available()\nelse:\n    device = 'cpu'\n"
    assert kinds(script, "train_gpt2.py") == [DISTRIBUTED_STOPS_WITHOUT_CUDA]


def test_a_device_option_says_the_package_is_not_written_for_gpus_only():
    # LLaVA: ``--device`` (default "cuda") on its workers; its evaluation scripts hard-code .cuda().
    option = "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--device', default='cuda')\n"
    assert kinds(option, "serve/cli.py") == [DEVICE_OPTION]
    unchecked = [Evidence(UNCHECKED_CUDA, f"eval/e{n}.py", 1) for n in range(3)]
    assert decide(unchecked, 12, 0).verdict == REQUIRES_CUDA
    assert decide([*unchecked, Evidence(DEVICE_OPTION, "serve/cli.py", 3)], 12, 0).verdict == UNKNOWN


def test_the_index_counts_hard_coded_cuda_uses_and_the_guarded_ones():
    source = "import torch\nx = y.cuda()\nz = w.to('cuda')\nif torch.cuda.is_available():\n    v = u.cuda()\n"
    index = index_source(source, "a.py", ".")
    assert (index.cuda_uses, index.guarded_cuda_uses) == (3, 1)


def evidence(*kinds: str) -> list[Evidence]:
    return [Evidence(kind, "a.py", line) for line, kind in enumerate(kinds, 1)]


@pytest.mark.parametrize(
    ("found", "uses", "verdict"),
    [
        (evidence(FALLBACK), (0, 0), SUPPORTS_CPU),
        (evidence(CPU_OPTION, CPU_DEFAULT), (2, 0), SUPPORTS_CPU),
        # A stop without CUDA decides alone.
        (evidence(FALLBACK, STOPS_WITHOUT_CUDA), (0, 0), REQUIRES_CUDA),
        (evidence(NCCL_ONLY), (0, 0), REQUIRES_CUDA),
        # Mixed signs: unknown.
        (evidence(FALLBACK, NCCL_ONLY), (0, 0), UNKNOWN),
        # A load onto the CPU alone says little.
        (evidence(CPU_LOAD), (0, 0), UNKNOWN),
        ([], (5, 0), UNKNOWN),
        # One fallback against forty unguarded .cuda(): boilerplate, not a belief.
        (evidence(FALLBACK), (40, 0), UNKNOWN),
    ],
)
def test_decide(found, uses, verdict):
    assert decide(found, *uses).verdict == verdict


def test_a_decided_belief_cites_its_most_telling_evidence_first():
    belief = decide([Evidence(CPU_DEFAULT, "a.py", 1), Evidence(FALLBACK, "b.py", 9)])
    assert belief.cited() == "the project falls back to the CPU in b.py:9"
    assert decide(evidence(STOPS_WITHOUT_CUDA)).cited() == "the project requires CUDA: a.py:1 stops without CUDA"


def test_packages_without_evidence_take_the_library_s_belief_but_satellites_keep_their_own():
    indexes = [
        FileIndex("lib/core.py", "lib", (Evidence(FALLBACK, "lib/core.py", 3),)),
        FileIndex("lib2/models.py", "lib2"),
        FileIndex("examples/ddp.py", "examples", (Evidence(STOPS_WITHOUT_CUDA, "examples/ddp.py", 7),)),
        FileIndex("benchmarks/speed.py", "benchmarks"),
    ]
    beliefs = infer(indexes)
    assert beliefs["lib"].verdict == beliefs["lib2"].verdict == SUPPORTS_CPU
    assert beliefs["examples"].verdict == REQUIRES_CUDA
    assert beliefs["benchmarks"].verdict == UNKNOWN


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_layout(tmp_path):
    write(tmp_path, "pyproject.toml", "")
    module = write(tmp_path, "src/pkg/sub/mod.py", "")
    write(tmp_path, ".venv/lib/site.py", "")
    write(tmp_path, "build/lib/pkg/mod.py", "")
    script = write(tmp_path, "train.py", "")
    assert find_root(module) == tmp_path.resolve()
    assert package_of(tmp_path.resolve(), module) == "pkg"
    assert package_of(tmp_path.resolve(), script) == "."
    assert [path.relative_to(tmp_path).as_posix() for path in project_files(tmp_path)] == [
        "train.py",
        "src/pkg/sub/mod.py",
    ]


def test_a_virtual_environment_is_known_by_its_pyvenv_cfg_not_its_name(tmp_path):
    """A reinforcement-learning project's ``env/`` package is its own code; a virtual environment
    called ``py311/`` is not."""
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "env/cartpole.py", "")
    write(tmp_path, "py311/pyvenv.cfg", "")
    write(tmp_path, "py311/lib/site.py", "")
    write(tmp_path, "pkg.egg-info/setup.py", "")
    assert [path.relative_to(tmp_path).as_posix() for path in project_files(tmp_path)] == ["env/cartpole.py"]


def test_without_a_marker_a_package_belongs_to_the_folder_above_it(tmp_path):
    # An unpacked wheel: linting its files finds the folder holding the package, whatever folder
    # inside the package the files share.
    module = write(tmp_path, "site/pkg/ops/kernels.py", "")
    write(tmp_path, "site/pkg/__init__.py", "")
    write(tmp_path, "site/pkg/ops/__init__.py", "")
    assert find_root(module) == (tmp_path / "site").resolve()
    assert find_root(tmp_path / "site" / "pkg") == (tmp_path / "site").resolve()
    assert package_of((tmp_path / "site").resolve(), module) == "pkg"
    # A benchmarks folder inside the package keeps a belief of its own.
    bench = write(tmp_path, "site/pkg/benchmarks/bench_attention.py", "")
    assert package_of((tmp_path / "site").resolve(), bench) == "pkg/benchmarks"
    # So does a benchmark or demo script beside the package's modules (sam2/benchmark.py).
    script = write(tmp_path, "site/pkg/benchmark.py", "")
    assert package_of((tmp_path / "site").resolve(), script) == "pkg/benchmark"
    assert is_satellite("pkg/benchmark")
    helper = write(tmp_path, "site/pkg/benchmark_utils.py", "")  # a helper named after one is the package's
    assert package_of((tmp_path / "site").resolve(), helper) == "pkg"


def test_each_folder_of_examples_is_a_sub_project_of_its_own(tmp_path):
    # fairseq's examples/MMPT needs a GPU where examples/speech_synthesis falls back to the CPU:
    # one example's fallback says nothing of another's code.
    root = tmp_path.resolve()
    nested = write(tmp_path, "fairseq/examples/MMPT/mmpt/evals/predictor.py", "")
    assert package_of(root, nested) == "fairseq/examples/MMPT"
    assert is_satellite("fairseq/examples/MMPT")
    assert package_of(root, write(tmp_path, "fairseq/examples/__init__.py", "")) == "fairseq/examples"
    assert package_of(root, write(tmp_path, "examples/mnist/main.py", "")) == "examples/mnist"
    assert is_satellite("examples/mnist")
    assert package_of(root, write(tmp_path, "examples/train.py", "")) == "examples"
    assert not is_satellite("pkg/models")


def test_a_directory_of_scripts_is_a_project_too(tmp_path):
    folder = tmp_path / "scripts"
    script = write(folder, "run.py", "")
    assert find_root(script) in (folder.resolve(), *folder.resolve().parents)


def one_project(root: Path, **options):
    """The beliefs of the one project ``root`` holds, as a run given ``root`` reads them."""
    (project,) = beliefs_of([root], **options).each
    return project


def test_repositories_linted_at_once_are_read_one_by_one(tmp_path):
    # Two repositories and an unpacked wheel, in a folder that is no project: each is its own
    # project, and nothing else under the folder they share is read.
    first = write(tmp_path, "one/lib/core.py", "import torch\n")
    write(tmp_path, "one/pyproject.toml", "")
    second = write(tmp_path, "two/train.py", "import torch\n")
    write(tmp_path, "two/.git/HEAD", "")
    wheel = write(tmp_path, "wheel/pkg/ops.py", "import torch\n")
    write(tmp_path, "wheel/pkg/__init__.py", "")
    write(tmp_path, "elsewhere/huge/unrelated.py", "import torch\n")
    assert project_roots([first, second, wheel]) == tuple(
        sorted((tmp_path / name).resolve() for name in ("one", "two", "wheel"))
    )
    projects = beliefs_of([first, second, wheel])
    assert {project.root.name for project in projects.each} == {"one", "two", "wheel"}


def test_a_folder_of_scripts_inside_a_linted_folder_is_part_of_its_project(tmp_path):
    # No marker anywhere: the scripts in models/ belong to the folder the run was given, and a
    # project with a marker inside it stays its own.
    script = write(tmp_path, "repo/train.py", "import torch\n")
    nested = write(tmp_path, "repo/models/net.py", "import torch\n")
    inner = write(tmp_path, "repo/vendor/lib/core.py", "import torch\n")
    write(tmp_path, "repo/vendor/lib/setup.py", "")
    repo = (tmp_path / "repo").resolve()
    assert project_roots([tmp_path / "repo"]) == (repo, repo / "vendor" / "lib")
    assert project_roots([script, nested]) == (repo,)
    assert project_roots([script, inner]) == (repo, repo / "vendor" / "lib")
    projects = beliefs_of([tmp_path / "repo", inner])
    assert [project.root for project in projects.each] == [repo, repo / "vendor" / "lib"]
    assert projects.for_file(inner) == projects.each[1].for_file(inner)
    assert projects.for_file(tmp_path / "outside.py") == NO_FACTS


def test_projects_inside_a_folder_given_are_their_own(tmp_path):
    # An unpacked sdist in a download folder, checkouts side by side: each is read as a run given
    # only its files reads it, and the folder that only holds them is no project. A project keeps
    # the projects it holds (a CUDA kernels package with its own setup.py).
    sdist = write(tmp_path, "downloads/pkg-1.0/pkg/core.py", "import torch\n")
    write(tmp_path, "downloads/pkg-1.0/setup.py", "")
    checkout = write(tmp_path, "downloads/repo/train.py", "import torch\n")
    write(tmp_path, "downloads/repo/.git/HEAD", "")
    write(tmp_path, "downloads/repo/ops/setup.py", "")
    write(tmp_path, "downloads/repo/ops/kernels.py", "import torch\n")
    downloads = (tmp_path / "downloads").resolve()
    expected = (downloads / "pkg-1.0", downloads / "repo")
    assert project_roots([downloads]) == expected
    assert project_roots([sdist, checkout]) == expected
    assert [path.name for path in project_files(downloads / "repo")] == ["train.py", "kernels.py", "setup.py"]
    assert [path.name for path in project_files(downloads)] == []


@pytest.mark.parametrize(
    ("heading", "needs"),
    [
        ("Environment", True),  # HRNet's "## Environment": "NVIDIA GPUs are needed."
        ("Requirements", True),
        ("Results", False),
        ("Environment variables", False),
        ("Setting up the environment", False),
    ],
)
def test_a_readme_section_about_the_environment_states_a_need(tmp_path, heading, needs):
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "lib/core.py", "import torch\nx = torch.ones(3).cuda()\n")
    write(tmp_path, "README.md", f"# Pose\n\nA method.\n\n## {heading}\n\nNVIDIA GPUs are needed.\n")
    cited = [item.cited() for item in read_project(tmp_path.resolve()).for_path(tmp_path / "lib" / "core.py").evidence]
    assert cited == (["README.md:7 says it needs CUDA"] if needs else [])


def test_read_project_decides_per_file_where_a_script_alone_requires_cuda(tmp_path):
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "lib/core.py", 'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n')
    gpu_script = write(tmp_path, "lib/gpu_only.py", "import setGPU\nimport torch\n")
    write(tmp_path, "README.md", "# lib\n\n## Requirements\n\n- an NVIDIA GPU with CUDA 12\n")
    beliefs = read_project(tmp_path.resolve())
    assert beliefs.for_path(tmp_path / "lib" / "core.py").verdict == SUPPORTS_CPU
    assert beliefs.for_path(gpu_script).verdict == REQUIRES_CUDA
    assert beliefs.packages["."].evidence[0].cited() == "README.md:5 says it needs CUDA"
    assert beliefs.for_path(Path("/elsewhere/x.py")) is NO_BELIEF


@pytest.mark.parametrize(
    ("lead", "needs"),
    [
        ("An implementation of model editing on transformers (GPU-only).", True),
        ("Requires an NVIDIA GPU with 24 GB of memory.", True),
        ("Developed on Ubuntu 16.04. NVIDIA GPUs are needed.", True),
        ("A GPU is not required: everything runs on the CPU.", False),
        ("No GPU is needed.", False),
        ("GPUs are needed only for training; inference runs on the CPU.", False),
        ("Runs on the CPU; a GPU is recommended for speed.", False),
        ("A small library that does not need a GPU: everything runs on the CPU.", False),
        ("Tested with Python 3.8 and PyTorch 1.10; requires CUDA 11.3.", False),  # a toolkit version
        ("- Multi-GPU training and mixed precision", False),  # a feature, not a need
    ],
)
def test_a_readme_lead_that_says_what_the_project_needs(tmp_path, lead, needs):
    """The lead under the title says what the project is ("... (GPU-only)"), as a requirements
    section does; elsewhere a README may discuss GPUs in any sense."""
    write(tmp_path, ".git/HEAD", "")
    write(tmp_path, "README.md", f"# Editing\n\n{lead}\n\n## Usage\n\nTrain on 8 GPUs with CUDA only for speed.\n")
    write(tmp_path, "edit/core.py", "import torch\n\ndef f(x):\n    return x.cuda()\n")
    beliefs = read_project(tmp_path.resolve())
    root = beliefs.packages.get(".")
    cited = [item.cited() for item in root.evidence] if root is not None else []
    assert cited == (["README.md:3 says it needs CUDA"] if needs else [])
    # ``edit/`` only hard-codes CUDA, too little to be a belief: it takes what the README says.
    assert beliefs.for_path(tmp_path / "edit" / "core.py").verdict == (REQUIRES_CUDA if needs else UNKNOWN)


@pytest.mark.parametrize(
    ("note", "needs"),
    [
        ("**Note**: ``attack`` requires PyTorch to be installed with CUDA support.", True),
        ("attack needs an NVIDIA GPU.", True),
        ("The ``attack`` package does not need a GPU.", False),  # said, but not a need
        ("Our attack requires a GPU for the ImageNet runs.", False),  # a word, not the package's name
        ("``attack`` requires PyTorch 2.0 or later.", False),  # no CUDA in the need
        ("``attack`` requires a config file. Training needs a GPU.", False),  # another sentence's need
        ("``attack`` requires COCO; the scripts need 8 GPUs.", False),  # another clause's
        ("Attack requires a GPU for the large model.", False),  # the word, not the package
    ],
)
def test_a_readme_sentence_about_a_package_says_what_it_and_its_subpackages_need(tmp_path, note, needs):
    """A sentence whose subject is a package of the project, by its name, is a requirement wherever
    the README says it (MadryLab's robustness: a note under its quick start), and it speaks for the
    packages inside it too, ``tools/`` folders included."""
    write(tmp_path, ".git/HEAD", "")
    write(tmp_path, "README.rst", f"Attacks\n=======\n\nUsage\n-----\n\n{note}\n")
    write(tmp_path, "attack/core.py", "import torch\n\ndef f(x):\n    return x.cuda()\n")
    write(tmp_path, "attack/tools/prefetch.py", "import torch\n\ndef g(x):\n    return x.cuda()\n")
    beliefs = read_project(tmp_path.resolve())
    expected = REQUIRES_CUDA if needs else UNKNOWN
    assert beliefs.for_path(tmp_path / "attack" / "core.py").verdict == expected
    assert beliefs.for_path(tmp_path / "attack" / "tools" / "prefetch.py").verdict == expected


def test_a_readme_sentence_about_one_package_speaks_for_it_alone(tmp_path):
    """The root README's sentence about ``cuda_ops`` says nothing of ``core``, which falls back."""
    write(tmp_path, ".git/HEAD", "")
    write(tmp_path, "README.md", "# Ops\n\n## Usage\n\n`cuda_ops` requires a CUDA GPU; the rest runs on the CPU.\n")
    write(tmp_path, "cuda_ops/kernels.py", "import torch\n\ndef f(x):\n    return x.cuda()\n")
    fallback = 'import torch\n\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
    write(tmp_path, "core/model.py", fallback)
    beliefs = read_project(tmp_path.resolve())
    assert beliefs.for_path(tmp_path / "cuda_ops" / "kernels.py").verdict == REQUIRES_CUDA
    assert beliefs.for_path(tmp_path / "core" / "model.py").verdict != REQUIRES_CUDA


@pytest.mark.parametrize(
    ("item", "needs"),
    [
        ("- CUDA >= 10.0", False),  # the toolkit a GPU install builds against: DGCNN offers --no_cuda
        ("* Linux, CUDA>=9.2, GCC>=5.4", False),
        ("- NVIDIA GPU + CUDA 11.3", True),  # hardware
        ("- a GPU with 24 GB of memory", True),
    ],
)
def test_a_requirements_item_needs_cuda_where_it_names_hardware(tmp_path, item, needs):
    write(tmp_path, ".git/HEAD", "")
    write(tmp_path, "README.md", f"# Points\n\nClassify point clouds.\n\n## Requirements\n{item}\n- Python >= 3.7\n")
    write(tmp_path, "train.py", "import torch\n")
    root = read_project(tmp_path.resolve()).packages.get(".")
    assert bool(root is not None and root.evidence) is needs


def test_a_readme_s_html_title_and_code_blocks_are_read_as_such(tmp_path):
    """An HTML title is a heading, so the requirements section below it is no lead; the lines of a
    code block are neither headings nor sentences."""
    write(tmp_path, ".git/HEAD", "")
    readme = (
        '<h1 align="center">Points</h1>\n\n## Requirements\n- Python 3.8, PyTorch 1.10, requires CUDA 11.3\n\n'
        "```bash\n# Setup\npip install -r requirements.txt  # needs an NVIDIA GPU to run the demo\n```\n"
    )
    write(tmp_path, "README.md", readme)
    write(tmp_path, "train.py", "import torch\n")
    assert read_project(tmp_path.resolve()).packages["."].evidence == ()


def test_a_package_whose_code_decides_nothing_runs_where_its_importers_do(tmp_path):
    """The ddim shape: ``main.py`` falls back to the CPU, ``runners/`` offers a CPU device, and
    ``functions/`` (imported by them) hard-codes ``.to("cuda")`` twice, too few uses to be a
    belief: it runs where its importers run, so its hard-coded device is a sure finding. In a
    project whose scripts all require CUDA, the ``utils/`` they import requires it too."""
    write(tmp_path, ".git/HEAD", "")
    fallback = 'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'
    write(tmp_path, "main.py", "from runners.diffusion import Diffusion\n" + fallback)
    write(tmp_path, "runners/diffusion.py", "from functions.denoising import steps\n" + fallback)
    denoising = write(tmp_path, "functions/denoising.py", "import torch\n\ndef steps(x):\n    return x.to('cuda')\n")
    write(
        tmp_path,
        "examples/demo.py",
        "import sys\nimport torch\nfrom helpers.extra import f\nif not torch.cuda.is_available():\n    sys.exit(1)\n",
    )
    write(tmp_path, "helpers/extra.py", "import torch\n\ndef f(x):\n    return x.cuda()\n")
    beliefs = read_project(tmp_path.resolve())
    taken = beliefs.for_path(denoising)
    assert taken.verdict == SUPPORTS_CPU and taken.cited().startswith("the project falls back to the CPU in ")
    assert beliefs.packages["functions"].note == "as the packages that import it: runners"
    # A satellite's needs do not pass to what it imports.
    assert beliefs.packages["helpers"].verdict == UNKNOWN

    gpu_only = tmp_path / "gpu_only"
    write(gpu_only, ".git/HEAD", "")
    stops = (
        "import sys\nimport torch\nfrom utils.misc import helper\nif not torch.cuda.is_available():\n    sys.exit(1)\n"
    )
    write(gpu_only, "train/train.py", stops)
    misc = write(gpu_only, "utils/misc.py", "import torch\n\ndef helper(x):\n    return x.cuda()\n")
    assert read_project(gpu_only.resolve()).for_path(misc).verdict == REQUIRES_CUDA


def test_packages_that_import_the_project_s_cuda_kernels_require_cuda_whatever_their_fallbacks(tmp_path):
    """The torch-ngp shape: scripts at the root fall back to the CPU, but the renderer imports a
    package that compiles CUDA kernels when imported, so neither can run without CUDA."""
    write(tmp_path, ".git/HEAD", "")
    write(
        tmp_path,
        "main.py",
        'import torch\nfrom nerf.renderer import Renderer\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n',
    )
    write(tmp_path, "nerf/renderer.py", "import torch\nimport raymarching\n\nclass Renderer: ...\n")
    write(tmp_path, "nerf/utils.py", 'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n')
    write(
        tmp_path,
        "raymarching/backend.py",
        "from torch.utils.cpp_extension import load\n_backend = load('rm', sources=['src/raymarching.cu'])\n",
    )
    write(tmp_path, "unrelated/plot.py", 'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n')
    beliefs = read_project(tmp_path.resolve())
    verdicts = {package: belief.verdict for package, belief in beliefs.packages.items()}
    assert verdicts == {
        ".": REQUIRES_CUDA,
        "nerf": REQUIRES_CUDA,
        "raymarching": REQUIRES_CUDA,
        "unrelated": SUPPORTS_CPU,
    }
    assert beliefs.packages["nerf"].cited() == (
        "the project requires CUDA: nerf/renderer.py:2 imports a package of the project that builds CUDA kernels"
    )


def test_files_that_import_a_module_building_cuda_kernels_require_cuda_whatever_their_package(tmp_path):
    """The KAIR shape: one package of networks, most of which run on the CPU; one network imports
    ``op/deform_attn.py``, which compiles a ``.cu`` kernel when imported (so does a script that
    imports that network, and one that imports ``op`` from beside it). Their package keeps its belief."""
    write(tmp_path, ".git/HEAD", "")
    write(tmp_path, "main_test.py", 'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n')
    write(
        tmp_path,
        "main_rvrt.py",
        "import torch\nfrom models.network_rvrt import RVRT\nfrom faces import detector\n\n\n"
        "def later():\n    from faces import only_later\n",
    )
    write(tmp_path, "faces/only_later.py", "import torch\n")  # imported lazily, by main_rvrt.py alone
    # Modules only files needing CUDA import need it too, unless they run as programs themselves
    # or a file that runs without CUDA imports them as well (lazily, here).
    write(tmp_path, "faces/detector.py", "import torch\nfrom faces import boxes\nimport faces.lazy\n")
    write(tmp_path, "faces/boxes.py", "import torch\n")
    write(tmp_path, "faces/demo.py", 'import torch\nif __name__ == "__main__":\n    print(torch.ones(1))\n')
    write(tmp_path, "faces/shared.py", "import torch\n")
    write(tmp_path, "main_shared.py", "import faces.demo\nimport faces.shared\n")
    write(
        tmp_path, "main_cpu.py", "def run():\n    from faces import shared\n    import faces.lazy\n    return shared\n"
    )
    write(tmp_path, "faces/lazy.py", "import torch\n")  # the CUDA file imports it at its top, main_cpu.py lazily
    nccl = 'if __name__ == "__main__":\n    torch.distributed.init_process_group(backend="nccl")\n'
    write(tmp_path, "train_ddp.py", f"import torch\n{nccl}")
    write(
        tmp_path,
        "models/network_rvrt.py",
        "import torch\nfrom .op.deform_attn import deform_attn\nimport faces.shared\n",
    )
    write(tmp_path, "models/__init__.py", "")
    write(tmp_path, "models/network_unet.py", "import torch\n\nclass UNet: ...\n")
    write(tmp_path, "models/network_gpen.py", "import torch\nfrom op import fused\n")
    write(tmp_path, "models/network_lazy.py", "def build():\n    from .op.deform_attn import deform_attn\n")
    write(tmp_path, "models/op/__init__.py", "")
    write(
        tmp_path,
        "models/op/deform_attn.py",
        "from torch.utils.cpp_extension import load\next = load('da', sources=['da.cpp', 'da_kernel.cu'])\n",
    )
    write(
        tmp_path, "models/op/fused.py", "from torch.utils.cpp_extension import load\nf = load('f', sources=['f.cu'])\n"
    )
    beliefs = read_project(tmp_path.resolve())
    requiring = {path for path, belief in beliefs.files.items() if belief.verdict == REQUIRES_CUDA}
    assert requiring == {
        "main_rvrt.py",
        "models/network_rvrt.py",
        "models/network_gpen.py",
        "models/op/deform_attn.py",
        "models/op/fused.py",
        "faces/detector.py",
        "faces/boxes.py",
        "faces/only_later.py",
        "train_ddp.py",
    }
    assert beliefs.files["faces/only_later.py"].cited() == (
        "the project requires CUDA: main_rvrt.py:7 imports it, and needs CUDA"
    )
    assert beliefs.files["faces/boxes.py"].cited() == (
        "the project requires CUDA: faces/detector.py:2 imports it, and needs CUDA"
    )
    assert beliefs.files["main_rvrt.py"].cited() == (
        "the project requires CUDA: main_rvrt.py:2 imports a module of the project that needs CUDA"
    )


def test_an_application_that_names_no_accelerator_never_uses_one(tmp_path):
    write(tmp_path, "train.py", "import torch\ninputs = torch.ones(3)\noutput = inputs * 2\n")
    # A lone file, or a few, may take its device from code that is not there.
    assert read_project(tmp_path.resolve()).for_path(tmp_path / "train.py").verdict != NO_ACCELERATOR
    for name in ("data", "model", "evaluate", "plots"):
        write(tmp_path, f"{name}.py", "import torch\n")
    assert read_project(tmp_path.resolve()).for_path(tmp_path / "train.py").verdict == NO_ACCELERATOR
    write(tmp_path, "setup.py", "from setuptools import setup\nsetup(name='x')\n")  # a library: users may
    assert read_project(tmp_path.resolve()).for_path(tmp_path / "train.py").verdict != NO_ACCELERATOR


def test_a_project_that_names_an_accelerator_is_not_cpu_only(tmp_path):
    write(tmp_path, "train.py", "import torch\nuse_mps = torch.backends.mps.is_available()\n")
    assert read_project(tmp_path.resolve()).for_path(tmp_path / "train.py").verdict != NO_ACCELERATOR


def test_a_warm_project_read_indexes_only_the_files_that_changed(tmp_path, monkeypatch):
    from flake8_torchdevice.project import scan

    root = tmp_path / "project"
    write(root, "lib/core.py", 'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n')
    write(root, "lib/model.py", "import torch\n")
    cache = tmp_path / "cache"
    first = read_project(root.resolve(), cache_dir=cache)
    indexed = []
    index_file = scan.index_file
    monkeypatch.setattr(scan, "index_file", lambda *args: indexed.append(args[1].name) or index_file(*args))
    assert read_project(root.resolve(), cache_dir=cache) == first
    assert indexed == []
    write(root, "lib/model.py", "import torch\nimport sys\nif not torch.cuda.is_available():\n    sys.exit(1)\n")
    assert read_project(root.resolve(), cache_dir=cache).packages["lib"].verdict == REQUIRES_CUDA
    assert indexed == ["model.py"]


def test_a_damaged_index_store_is_read_as_empty(tmp_path):
    root = tmp_path / "project"
    write(root, "lib/core.py", 'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n')
    cache = tmp_path / "cache"
    expected = read_project(root.resolve(), cache_dir=cache)
    (stored,) = (cache / f"v{FORMAT}" / "index").glob("*.json")
    for damage in ("", "{", '{"tool": "flake8-torchdevice", "files": {"lib/core.py": [[1, 2], [3]]}}', "[1, 2]"):
        stored.write_text(damage)
        assert read_project(root.resolve(), cache_dir=cache) == expected


def test_cuda_hard_coded_across_a_package_with_no_check_anywhere_requires_cuda(tmp_path):
    """A course written for GPUs: every lesson calls ``.cuda()``, none checks for CUDA, none falls
    back. Its notebooks count (cited by cell); one script with a few uses does not decide."""
    write(tmp_path, ".git/HEAD", "")
    lesson = "import torch\nmodel = Net().cuda()\nx = torch.rand(3).cuda()\ny = x.cuda()\nz = y.cuda()\n"
    for name in ("mnist", "cifar"):
        write(tmp_path, f"course/{name}.py", lesson)
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": lesson}
    write(
        tmp_path, "course/gan.ipynb", json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    write(tmp_path, "script/train.py", lesson * 3)
    beliefs = read_project(tmp_path.resolve())
    course = beliefs.packages["course"]
    assert course.verdict == REQUIRES_CUDA
    assert [item.cited() for item in course.evidence][:1] == ["course/cifar.py:2 uses CUDA without a check"]
    assert "course/gan.ipynb:cell 1:2 uses CUDA without a check" in [item.cited() for item in course.evidence]
    assert beliefs.packages["script"].verdict == UNKNOWN


@pytest.fixture
def project_reads(monkeypatch):
    """How many times the project was read (not taken from the beliefs a run kept)."""
    from flake8_torchdevice.project import scan

    reads = []
    read = scan.read_project
    monkeypatch.setattr(scan, "read_project", lambda *args: reads.append(args) or read(*args))
    return reads


APPLICATION = ("train", "data", "model", "evaluate", "plots")


@pytest.mark.parametrize(
    ("relative", "text"),
    [
        ("train.py", "import torch\nx = torch.zeros(1).cuda()\n"),  # a Python file
        ("setup.py", "from setuptools import setup\nsetup(name='x')\n"),  # packaging: a library now
        ("README.md", "# app\n\n## Requirements\n\n- an NVIDIA GPU with CUDA 12\n"),  # a README
    ],
    ids=["python", "packaging", "readme"],
)
def test_beliefs_are_kept_until_what_they_were_read_from_changes(tmp_path, project_reads, relative, text):
    write(tmp_path, ".git/HEAD", "")
    for name in APPLICATION:
        write(tmp_path, f"{name}.py", "import torch\n")
    cache = tmp_path / ".torchdevice_cache"
    first = one_project(tmp_path, cache_dir=cache)
    assert first.packages["."].verdict == NO_ACCELERATOR
    assert one_project(tmp_path, cache_dir=cache) == first and len(project_reads) == 1
    assert one_project(tmp_path, memory_budget=64, cache_dir=cache) == first and len(project_reads) == 2
    write(tmp_path, relative, text)
    changed = one_project(tmp_path, cache_dir=cache)
    assert len(project_reads) == 3
    if relative != "README.md":  # an application's README is not read: it never uses an accelerator
        assert changed.packages["."].verdict != NO_ACCELERATOR
    assert one_project(tmp_path, cache_dir=cache) == changed and len(project_reads) == 3
    assert one_project(tmp_path) == changed  # read without the cache


def test_kept_beliefs_quote_the_readme_and_the_callers_as_read(tmp_path, project_reads):
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "lib/gpu_only.py", "import setGPU\nimport torch\n")
    model = 'import torch\ndef _build(device="cuda"):\n    return torch.zeros(1, device=device)\n'
    write(tmp_path, "lib/model.py", model)
    write(tmp_path, "lib/train.py", "from lib.model import _build\n_build(device='cpu')\n")
    write(tmp_path, "lib/README.md", "# lib\n\n## Requirements\n\n- an NVIDIA GPU with CUDA 12\n")
    cache = tmp_path / "cache"
    read = one_project(tmp_path, cache_dir=cache)
    assert read.files and read.callers and any(belief.evidence for belief in read.packages.values())
    assert one_project(tmp_path, cache_dir=cache) == read and len(project_reads) == 1


def test_damaged_kept_beliefs_are_read_again(tmp_path, project_reads):
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "lib/core.py", 'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n')
    cache = tmp_path / "cache"
    expected = one_project(tmp_path, cache_dir=cache)
    (kept,) = (cache / f"v{FORMAT}" / "beliefs").glob("*.json")
    for damage in ("", "{", "[1, 2]", kept.read_text().replace('"packages"', '"pakages"')):
        kept.write_text(damage)
        assert one_project(tmp_path, cache_dir=cache) == expected
    assert len(project_reads) == 5


def test_a_notebook_s_own_markers_name_no_device(tmp_path):
    """The virtual module's cell ends and IPython placeholders say "torchdevice": a course of
    notebooks that never names a device is still a CPU-only application."""
    write(tmp_path, ".git/HEAD", "")
    cell = {
        "cell_type": "code",
        "metadata": {},
        "outputs": [],
        "execution_count": None,
        "source": "%matplotlib inline\nimport torch\nx = torch.ones(3)\n",
    }
    for name in ("a", "b", "c", "d", "e"):
        write(
            tmp_path, f"{name}.ipynb", json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
        )
    assert read_project(tmp_path.resolve()).packages["."].verdict == NO_ACCELERATOR


def test_the_index_walks_find_what_ast_walk_finds_but_markers() -> None:
    tree = ast.parse(
        textwrap.dedent(
            """
            class Net(Base, metaclass=Meta):
                def forward(self, x, *, scale=f(2)):
                    inner = lambda y: y.cuda()
                    def helper(z):
                        return z + 1
                    return [v for v in x if not v] or -x
            """
        )
    )
    markers = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
    walked = [node for node in ast.walk(tree) if not isinstance(node, markers)]
    assert sorted(map(id, descendants(tree))) == sorted(map(id, walked))
    forward = tree.body[0].body[0]
    own = own_nodes(forward)
    assert any(isinstance(node, ast.Lambda) for node in own) and any(isinstance(n, ast.FunctionDef) for n in own)
    assert not any(isinstance(node, ast.Attribute) and node.attr == "cuda" for node in own)  # inside the lambda
    assert not any(isinstance(node, ast.BinOp) for node in own)  # ``z + 1``, inside ``helper``


def test_packages_that_only_hard_code_cuda_share_a_gpu_only_pattern_they_make_together():
    # Uformer: unchecked .cuda() in two or three scripts of each of train/, test/, utils/; no
    # package a pattern alone, together written for GPUs only.
    indexes = [
        FileIndex(f"{package}/s{n}.py", package, (Evidence(UNCHECKED_CUDA, f"{package}/s{n}.py", 5),), cuda_uses=4)
        for package in ("train", "test")
        for n in range(2)
    ]
    beliefs = infer([*indexes, FileIndex("dataset/io.py", "dataset")])
    assert {package: belief.verdict for package, belief in beliefs.items()} == dict.fromkeys(
        ("train", "test", "dataset"), REQUIRES_CUDA
    )
    # A fallback anywhere in the library: nothing is shared, each keeps its own.
    fallback = FileIndex("utils/device.py", "utils", (Evidence(FALLBACK, "utils/device.py", 2),))
    assert infer([*indexes, fallback])["train"].verdict == UNKNOWN


def _references(files: dict[str, str]) -> list[tuple[str, FileReferences]]:
    return [(path, index_source(textwrap.dedent(source), path, ".").references) for path, source in files.items()]


def unreferenced(files: list[tuple[str, FileReferences]], library: bool) -> dict[str, tuple[str, ...]]:
    project = ProjectReferences(files, library=library)
    found = {path: project.unreferenced(path) for path, _ in files}
    return {path: names for path, names in found.items() if names}


def test_definitions_nothing_in_the_project_refers_to():
    files = {
        "pkg/core.py": "import torch\ndef used(): pass\ndef unused(): pass\ndef _private(): pass\nclass Old: pass\n",
        "pkg/run.py": "from pkg.core import used\nused()\n",
        "scripts/entry.py": "import torch\nprint('main_entry')\n",
        "tests/test_core.py": "def helper(): pass\n",  # a test runner calls test files' functions
    }
    assert unreferenced(_references(files), library=False) == {"pkg/core.py": ("unused", "_private", "Old")}
    # A library's users call its public names: only private ones are unreferenced.
    assert unreferenced(_references(files), library=True) == {"pkg/core.py": ("_private",)}
    # A string (``__all__``, an entry point, a registry's key) or an attribute anywhere refers to it.
    files["pkg/__init__.py"] = "__all__ = ['unused']\nimport pkg.core as core\ncore.Old\n"
    assert unreferenced(_references(files), library=False) == {"pkg/core.py": ("_private",)}
    # A module imported by a computed name may be any: nothing is said.
    files["pkg/config.py"] = "import importlib\ndef build(name):\n    return importlib.import_module(name)\n"
    assert unreferenced(_references(files), library=False) == {}


def test_methods_nothing_in_the_project_asks_for():
    """LTSF-Linear's ``time_delay_agg_full``: a model method no code calls. A method is asked for
    by an attribute (``self.step()``, ``model.step``) or a string anywhere; overrides of
    ``nn.Module``'s own methods and the methods of classes with a framework base run unnamed."""
    files = {
        "models/attention.py": """
            import torch
            from torch import nn
            import lightning

            class Attention(nn.Module):
                def forward(self, x):
                    return self.aggregate(x)

                def aggregate(self, x):
                    return x

                def aggregate_full(self, x):
                    return x.cuda()

                def train(self, mode=True):
                    return super().train(mode)

                def _load_from_state_dict(self, *args):
                    pass

                @property
                def width(self):
                    return 3

            class Helper:
                def unused(self):
                    pass

            class Trainer(lightning.LightningModule):
                def training_step(self, batch):
                    pass
        """,
        "run.py": "from models.attention import Attention, Helper, Trainer\nAttention()(1)\nHelper()\nTrainer()\n",
    }
    assert unreferenced(_references(files), library=False) == {
        "models/attention.py": ("Attention.aggregate_full", "Helper.unused")
    }
    # In a library, users may call any public method.
    assert unreferenced(_references(files), library=True) == {}


@pytest.mark.parametrize(
    "source",
    [
        # A file-local base whose own base is a framework's: Lightning calls the hooks.
        "import lightning\nclass Base(lightning.LightningModule):\n    pass\n"
        "class Model(Base):\n    def training_step(self, batch):\n        pass\n",
        # A registry hands the class to a framework that calls its methods by name.
        "import torch\n@MODELS.register_module()\nclass Head(torch.nn.Module):\n    def loss(self, x):\n        pass\n",
        # Methods asked for by a computed name.
        "import torch\nclass Net(torch.nn.Module):\n    def forward(self, x, mode):\n"
        "        return getattr(self, 'forward_' + mode)(x)\n    def forward_train(self, x):\n        pass\n",
        # torch calls these by name: parametrizations and FSDP's materialisation.
        "import torch\nclass Positive(torch.nn.Module):\n    def right_inverse(self, x):\n        pass\n"
        "    def reset_parameters(self):\n        pass\n",
    ],
)
def test_methods_a_framework_or_a_computed_name_may_call_are_not_candidates(source):
    files = {
        "pkg/model.py": source,
        "run.py": "from pkg import model\nprint(model.Model, model.Head, model.Net, model.Positive)\n",
    }
    assert unreferenced(_references(files), library=False) == {}


def test_an_import_is_matched_by_its_module_s_last_parts_and_eval_reaches_its_module():
    files = {
        "detector/models/common.py": "import torch\ndef Conv(): pass\ndef Focus(): pass\ndef Dead(): pass\n",
        "detector/models/yolo.py": "from models.common import *\ndef parse(m):\n    return eval(m)\n",
        "detector/run.py": "from models.common import Conv\n",
        "other/common.py": "import os\ndef Dead(): pass\n",
    }
    # yolo.py evaluates names of its own module and of what it imports with ``*``: common.py's.
    assert unreferenced(_references(files), library=False) == {"other/common.py": ("Dead",)}


def test_a_readme_or_a_configuration_file_beside_the_code_names_what_users_call(tmp_path):
    write(tmp_path, "README.md", "```python\nfrom models import build_model\n```\n")
    write(tmp_path, "cog.yaml", 'predict: "predict.py:Predictor"\n')
    write(tmp_path, "pkg/config.yml", "model: ResNet\n")
    words = words_outside_the_code(tmp_path, ["pkg"])
    assert {"build_model", "Predictor", "ResNet"} <= words


@pytest.mark.parametrize(
    "files",
    [
        {  # a star re-export: ``from pkg import build`` names pkg.core.build
            "pkg/__init__.py": "from .core import *\n",
            "pkg/core.py": "import torch\ndef build(): pass\n",
            "train.py": "from pkg import build\n",
        },
        {  # the PyTorch ImageNet example: models.__dict__[args.arch]
            "models/__init__.py": "from .resnet import *\n",
            "models/resnet.py": "import torch\ndef build(): pass\n",
            "train.py": "import models\nmodels.__dict__[name]()\n",
        },
        {  # getattr of a package that re-exports a module with ``*``
            "models/__init__.py": "from .resnet import *\n",
            "models/resnet.py": "import torch\ndef build(): pass\n",
            "train.py": "import models\ngetattr(models, name)()\n",
        },
        {  # a star import under ``try``
            "ops/__init__.py": "try:\n    from .cuda_ops import *\nexcept ImportError:\n    pass\n",
            "ops/cuda_ops.py": "import torch\ndef build(): pass\n",
            "train.py": "from ops import build\n",
        },
        {  # a module looked up by name
            "pkg/core.py": "import torch\ndef build(): pass\n",
            "train.py": "import sys\nsys.modules[name].build()\n",
        },
        {  # a file that does not parse may refer to anything
            "pkg/core.py": "import torch\ndef build(): pass\n",
            "old.py": "import pkg\nprint 'python 2'\n",
        },
        {  # a registry filled as subclasses are made, the class picked by a name from the command line
            "plugins/base.py": (
                "REGISTRY = {}\nclass Base:\n    def __init_subclass__(cls):\n        REGISTRY[cls.__name__] = cls\n"
            ),
            "plugins/blur.py": "import torch\nfrom plugins.base import Base\nclass Blur(Base):\n    pass\n",
            "main.py": "import sys\nimport plugins.blur\nfrom plugins.base import REGISTRY\nREGISTRY[sys.argv[1]]()\n",
        },
        {  # ReChorus: a package whose ``__all__`` lists its modules, a class of one named by ``eval``
            "models/__init__.py": "import glob\n__all__ = [name[:-3] for name in glob.glob('*.py')]\n",
            "models/CLRec.py": "import torch\nclass CLRec:\n    loss = None\ndef contrastive(x): return x\n",
            "main.py": "from models import *\nname = input()\nmodel = eval(f'{name}.{name}')\n",
        },
    ],
)
def test_what_reaches_a_definition_by_a_path_the_names_do_not_show(files):
    assert unreferenced(_references(files), library=False) == {}


def test_an_attribute_of_torch_names_no_definition_of_the_project():
    # CS285's pytorch_util.set_device(), which no script calls: `torch.cuda.set_device` inside it,
    # and in run.py, are torch's; `util.init_gpu` is ours.
    files = {
        "util.py": "import torch\ndef set_device(i):\n    torch.cuda.set_device(i)\ndef init_gpu(): pass\n",
        "run.py": "import torch\nimport util\nutil.init_gpu()\ntorch.cuda.set_device(0)\n",
    }
    assert unreferenced(_references(files), library=False) == {"util.py": ("set_device",)}


def test_a_definition_only_dead_code_refers_to_is_dead_too():
    # GraphRNN's shape: a helper of model.py called only by a training function of train.py whose
    # one call in main.py is commented out; main.py star-imports train.py, which star-imports model.py.
    files = {
        "model.py": "import torch\ndef sample(y): return y\ndef used(y): return y\nclass Old:\n    pass\n",
        "train.py": (
            "from model import *\ndef train_completion(y):\n    return sample(y), Old()\n"
            "def train(y):\n    return used(y)\ndef chain(y):\n    return train_completion(y)\n"
        ),
        "main.py": "from train import *\n# train_completion(1)\ntrain(1)\n",
    }
    assert unreferenced(_references(files), library=False) == {
        "model.py": ("sample", "Old"),
        "train.py": ("train_completion", "chain"),
    }
    # In a library, public definitions may run (its users call them), and what they call with them.
    assert unreferenced(_references(files), library=True) == {}
    # Code that may run calling the dead chain's head brings the chain back.
    files["main.py"] += "chain(2)\n"
    assert unreferenced(_references(files), library=False) == {}


def test_what_a_definition_runs_as_it_is_imported_is_live():
    # A class body, a default and a decorator run at import, whether anything refers to them or not.
    files = {
        "tables.py": (
            "import torch\ndef build_table(): return 1\ndef default_mask(): return 2\ndef tag(f): return f\n"
            "def in_body(): return 3\nclass Old:\n    table = build_table()\n"
            "    def method(self):\n        return in_body()\n"
            "def dead(x, mask=default_mask()): return x\n"
        ),
        "main.py": "import tables\n",
    }
    expected = ("tag", "in_body", "Old", "Old.method", "dead")
    assert unreferenced(_references(files), library=False) == {"tables.py": expected}


def test_a_definition_another_file_reaches_is_not_called_only_in_its_own():
    files = {
        "utils.py": "import torch\ndef make(n, device='cuda'): pass\ndef local_use(): return make(3)\n",
        "train.py": "from utils import *\nx = make(3)\n",
        "alone.py": "import torch\ndef step(): pass\ndef run(): return step()\n",
    }
    project = ProjectReferences(_references(files))
    assert not project.only_here("utils.py", "make")
    assert project.only_here("alone.py", "step")


def test_a_fault_in_the_index_leaves_the_file_unknown_and_the_run_going(monkeypatch):
    """A reader's own bug must not end the user's run: the file is indexed as not read."""
    from flake8_torchdevice.project import index

    def broken(*args, **kwargs):
        raise AttributeError("a reader's bug")

    monkeypatch.setattr(index, "_index_tree", broken)
    found = index_source("import torch\ntorch.save(x, 'a.pt')\n", "pkg/a.py", "pkg")
    assert [item.kind for item in found.evidence] == ["could not be read"] and found.references.reaches_any


def test_a_loop_that_binds_a_saved_name_another_way_is_no_copy():
    """``for x in xs: sd = ...`` before ``torch.save(sd, path)`` (brevitas' shape, once a crash)."""
    source = (
        "import torch\n\n\ndef save(models, path):\n    for model in models:\n        sd = model.state_dict()\n"
        "    torch.save(sd, path)\n"
    )
    assert [item.kind for item in index_source(source, "pkg/save.py", "pkg").evidence] == ["saves tensors"]


@pytest.mark.parametrize(
    ("setup_py", "library"),
    [
        ("from setuptools import setup, find_packages\nsetup(name='x', packages=find_packages())\n", True),
        ("from setuptools import setup\nsetup(name='x')\n", True),  # setuptools finds the modules itself
        ("from setuptools import setup\nsetup(name='x', py_modules=['x'])\n", True),
        ("from setuptools import setup\nsetup(name='ops', ext_modules=[make_cuda_ext('nms')])\n", False),
        ("from setuptools import find_packages, setup\nsetup(name='dcn', ext_modules=[ext])\n", False),
        ("from setuptools import setup\nsetup(**config)\n", True),  # not shown: it may install some
    ],
    ids=["packages", "discovered", "modules", "extensions-only", "find-packages-imported", "unpacked"],
)
def test_a_setup_py_that_only_builds_extensions_makes_no_library(tmp_path, setup_py, library):
    # A research repository's setup.py often builds its CUDA ops and nothing else: nobody installs
    # its modules, so what nothing in it refers to is code nothing runs.
    write(tmp_path, "setup.py", setup_py)
    assert is_library(tmp_path) is library
