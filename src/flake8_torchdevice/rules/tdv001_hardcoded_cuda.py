"""TDV001: a hard-coded CUDA device."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import cast

import libcst as cst

from ..analysis.queries import (
    Analysis,
    CallFact,
    Origin,
    Value,
    bool_value,
    device_index_literal,
    elements,
    is_cuda_literal,
    is_device,
    is_instance_of_other_class,
    keyword_argument,
    load_with_map_location,
    must_be_on_accelerator,
    option_attribute,
    own_nodes,
    positional_argument,
    string_value,
)
from ..confidence import Confidence
from ..knowledge.api import CUDA_ONLY_LIBRARIES, DEVICE_TYPE_CALLS, NEEDS_GPU
from ..settings import Settings
from .base import Finding, Rule, graded, graded_by_cpu_support, quoted

LEGACY_TENSOR_TYPES = frozenset(
    f"torch.cuda.{dtype}Tensor" for dtype in "Float Double Half BFloat16 Long Int Short Char Byte Bool".split()
)
CHOOSE_ONCE = 'torch.device("cuda" if torch.cuda.is_available() else "cpu")'


def _legacy_type_name(node: cst.BaseExpression, analysis: Analysis) -> str | None:
    """``torch.cuda.FloatTensor`` given as a type object or a string."""
    name = analysis.qualify(node) or string_value(node)
    return name if name in LEGACY_TENSOR_TYPES else None


# ``Tensor.cuda(device=None, non_blocking=False, memory_format=torch.preserve_format)`` (torch 2.13's
# stubs); ``Module.cuda(device=None)`` takes a subset. A ``.cuda(...)`` that fits neither is another
# class's method (a quantizer's ``cuda(qtensor, meta=meta)``), whatever its receiver looks like.
_CUDA_PARAMETERS = ("device", "non_blocking", "memory_format")


def _fits_cuda_signature(call: cst.Call) -> bool:
    """Does ``x.cuda(...)`` pass what ``Tensor.cuda`` takes, in any spelling: ``.cuda()``,
    ``.cuda(0)``, ``.cuda(args.gpu, non_blocking=True)``, ``.cuda(device=rank)``, ``.cuda(0, True)``?
    An unpacked ``*args`` / ``**kwargs`` could hold anything: not proven to fit."""
    bound: set[str] = set()
    for index, arg in enumerate(call.args):
        if arg.star:
            return False
        if arg.keyword is None:
            if index >= len(_CUDA_PARAMETERS):
                return False
            name = _CUDA_PARAMETERS[index]
        else:
            name = arg.keyword.value
        if name not in _CUDA_PARAMETERS or name in bound:
            return False
        bound.add(name)
    return True


def _guarded(call: CallFact) -> bool:
    return call.guarded or call.scope.cuda_specific


def _placement_arguments(call: CallFact) -> Iterator[tuple[cst.BaseExpression, int]]:
    """The arguments of a call that say where something is placed, with their index."""
    keywords = ("map_location",) if call.qualified in DEVICE_TYPE_CALLS else ("device", "map_location", "device_map")
    if call.qualified == "torch.device":
        keywords = ("type",)  # ``torch.device(type="cuda", index=i)``
    positional_index = None
    if call.qualified in ("torch.device", "torch.set_default_device", "torch.Generator") or call.method == "to":
        positional_index = 0
    elif (load := load_with_map_location(call)) is not None:  # ``torch.load(path, "cuda")``
        positional_index = load[1]
    position = 0
    for index, arg in enumerate(call.node.args):
        if arg.keyword is not None:
            if arg.keyword.value in keywords:
                yield arg.value, index
        elif not arg.star:
            if position == positional_index:
                yield arg.value, index
            position += 1


def _placements(call: CallFact, index: int, value: Value) -> Iterable[Value]:
    """The devices a placement argument holds: itself (``device = "cuda"`` ... ``.to(device)``), or
    each device a mapping maps to (``device_map={"": "cuda:0"}``, ``map_location={"cuda:1":
    "cuda:0"}``). What a ``device=`` keyword holds inside a list or a dict is not a placement:
    ``_add_arguments(parser, device={"choices": ["cpu", "cuda"]})`` offers options."""
    keyword = call.node.args[index].keyword
    return elements(value) if keyword is None or keyword.value != "device" else (value,)


def _hard_coded_origin(value: Value, analysis: Analysis, guarded: set[int]) -> cst.BaseExpression | None:
    """The unguarded ``"cuda"`` literal (or ``torch.cuda.*Tensor`` type) a device value came from."""
    origin = analysis.origin_node(value)
    literal = analysis.literal_at(origin)
    if not (is_device(value) and must_be_on_accelerator(value) and literal is not None) or literal.guarded:
        return None
    function = literal.scope.function
    if function is not None and id(function) in guarded:
        return None
    return literal.node


def _torch_placement(call: CallFact) -> bool:
    """A call of torch's that reads an integer as a device: ``.to(0)``, ``torch.device(1)``,
    ``torch.zeros(2, device=0)`` (other libraries, such as a transformers pipeline, read it their way)."""
    return call.method == "to" or (
        call.qualified is not None and call.qualified.startswith("torch.") and load_with_map_location(call) is None
    )


def _name(node: cst.BaseExpression, analysis: Analysis) -> str:
    return analysis.qualify(node) or "torch.cuda tensor type"


def _guarded_functions(analysis: Analysis) -> set[int]:
    """Functions whose every call in the project runs under a CUDA check, where other files call
    them (project/callers.py), and those whose every call in the file does (``main`` checks, then
    calls its helpers), when nothing else calls them: private helpers, nested ones, every
    function of a script or a test module, and those the project calls in this file alone.
    Iterated to a fixpoint: a helper of a guarded helper is guarded too."""
    decided = {id(function): analysis.guarded_by_its_callers(function) for function in analysis.functions()}
    guarded = {key for key, by_callers in decided.items() if by_callers}
    candidates = [
        function
        for function in analysis.functions()
        if decided[id(function)] is None and function.owner_key is None and analysis.has_no_callers_elsewhere(function)
    ]
    changed = True
    while changed:
        changed = False
        for function in candidates:
            if id(function) in guarded:
                continue
            sites = [analysis.call_at(site) for site in analysis.call_sites(function)]
            if sites and all(site is not None and _runs_guarded(site, guarded) for site in sites):
                guarded.add(id(function))
                changed = True
    return guarded


def _runs_guarded(call: CallFact, guarded: set[int]) -> bool:
    return _guarded(call) or (call.scope.function is not None and id(call.scope.function) in guarded)


def _used_as_a_device(option: str | None, analysis: Analysis) -> bool:
    """Is an option's value used as a device (``.to(args.device)``), where no CUDA check decides
    every read of it (``torch.device(args.device if torch.cuda.is_available() else "cpu")``)?"""
    if option is None or analysis.option_read_only_where_cuda_is(option):
        return False
    return any(name == option or name.endswith(f".{option}") for name in analysis.device_names(None))


_ONLY_UNSEEN_CALLERS = " (every call the project shows passes `%s`: only a caller it does not show takes the default)"


def _defaults_only_unseen_callers_take(analysis: Analysis) -> dict[int, str]:
    """The nodes of each device default that every call the project shows replaces, though callers
    it does not show may take it (a library's users; another file's calls of a method), with the
    parameter's name: whether it fails rests on code that is not there, so it is likely at most."""
    replaced = analysis.replaced_defaults(where_seen=True)
    return {
        id(node): fact.param.name.value
        for fact in analysis.defaults()
        if fact.param.default is not None and id(fact.param.default) in replaced
        for node in (fact.param.default, *own_nodes(fact.param.default))
    }


def _chosen_by_default(finding: Finding, flag: Origin, analysis: Analysis, settings: Settings) -> Finding:
    """A CUDA use in the branch a flag's default takes (``if self.use_gpu:`` with ``use_gpu=True``):
    every caller that does not pass the flag fails without CUDA, which makes it likely, not sure,
    unless the user says the project runs without CUDA."""
    problem = finding.message.split(";", 1)[0]
    line = analysis.line_of(flag.node)
    if type(flag.node) is cst.Call:  # ``--cuda`` with ``action="store_true", default=True``: always on
        return replace(finding, message=f"{problem}: {flag.reason} at line {line}; drop the default")
    param = cast(cst.Param, flag.node)
    default = f"`{param.name.value}={quoted(analysis, param.default or param.name)}`"
    # ``use_gpu=True`` becomes the check itself; ``no_cuda=False`` its negation.
    check = "torch.cuda.is_available()" if bool_value(param.default) else "not torch.cuda.is_available()"
    message = f"{problem} by default: {default} at line {line}; default it to {check}"
    confidence = finding.confidence if settings.runs_without_cuda else min(finding.confidence, Confidence.MEDIUM)
    return replace(finding, message=message, confidence=confidence)


class HardcodedCudaDevice(Rule):
    """
    ## What it does
    Reports a `"cuda"` / `"cuda:N"` device written into the code where a tensor or module is
    placed: `torch.device("cuda")`, `.to("cuda")`, `device="cuda"` (in any call or as a
    parameter default), `.cuda()`, `map_location="cuda"`, `torch.set_default_device("cuda")`,
    in every spelling of the same call: `torch.device("cuda", i)`, `torch.device(type="cuda",
    index=i)`, `.to(device="cuda", non_blocking=True)`, `.cuda(args.gpu, non_blocking=True)` (any
    arguments `Tensor.cuda` takes), and a CUDA device whose index is computed (`f"cuda:{rank}"`,
    `"cuda:" + str(i)`, `"cuda:%d" % i`, `"cuda:{}".format(i)`),
    an argparse default (`parser.add_argument("--device", default="cuda")`), legacy
    `torch.cuda.FloatTensor(...)` constructors and aliases of them (`FloatT = torch.cuda.FloatTensor`),
    a `device = "cuda"` variable or attribute that reaches one of these placements, and calls of
    `torch.cuda` functions that need a GPU (`synchronize`, `set_device`,
    `get_device_capability`...), unless a CUDA check guards them.

    ## Why is this bad?
    The code crashes on every machine without CUDA: CPU-only CI runners, laptops, Apple
    Silicon (MPS). A CPU build of PyTorch raises `AssertionError: Torch not compiled with CUDA
    enabled`; a CUDA build without a GPU raises a `RuntimeError` about the driver.

    Not reported: code under `if torch.cuda.is_available():` (also through `and`/`or`/`not`, a
    comparison with `True` or `False`, a variable assigned from it, a conditional expression, the
    `else` of `if not torch.cuda.is_available()`, code after an early
    `return`/`raise`/`pytest.skip`/`assert False`, code after a call of one of the file's
    functions that returns only where CUDA is (`require_gpu()` whose own statements are `if not
    torch.cuda.is_available(): raise ...`, `sys.exit(...)`, or `assert torch.cuda.is_available()`;
    one that only warns guards nothing), the methods of a class whose `__init__` stops so (no
    instance exists without CUDA), the right side
    of `torch.cuda.is_available() and ...`), device checks (`if x.is_cuda:`, `if device.type ==
    "cuda":`, `isinstance(self.accelerator, CUDAAccelerator)`, `dist.get_backend() == "nccl"`,
    `len(torch.cuda.default_generators) > 0`,
    `torch.cuda.max_memory_allocated() > 0`, `isinstance(device, int)`: a device given as an index
    is the GPU its caller chose, unless a number is its default; a count of GPUs, `if n_gpu == 0:`,
    not read as an index), a `try`
    whose `except` catches the failure (`AssertionError`, `RuntimeError`, `Exception`), names that
    make CUDA an explicit choice (`if args.use_gpu:`, a configuration's `if conf["use_gpu"]:` or
    `conf.get("use_gpu")`, a name assigned from one: `self.dp = conf["use_gpu"]`; not
    `conf.get("use_gpu", True)`, which chooses CUDA where the entry is missing, nor a
    measurement's entry, `stats["gpu_time"]`; but not a
    parameter whose default makes the choice, `use_gpu=True` or `no_cuda=False`, nor an attribute
    assigned from one: that branch runs for every caller that does not pass the flag, and is
    reported as likely, citing the default,
    unless every call in the file passes it; nor a command-line option that cannot be turned off,
    `add_argument("--cuda", action="store_true", default=True)`, whose branch every run takes
    and is reported as a hard-coded use), tests skipped without CUDA
    (`skipif`/`skipUnless`, also on a base class), functions and classes named for CUDA, functions that set up NCCL, run
    once per GPU (`mp.spawn(nprocs=device_count)`), spread a module over GPUs they list
    (`DataParallel(m, device_ids=[0, 1])`: a two-GPU test; `torch.nn.parallel.replicate` and
    `parallel_apply`, its building blocks), capture CUDA graphs
    (`torch.cuda.make_graphed_callables`, `torch.cuda.graph`) or run compiled CUDA kernels (of a
    module loaded with mmcv's `ext_loader.load_ext`, with `cpp_extension.load` of `.cu` sources, or
    imported under a name that says it holds CUDA kernels, `import pointnet2_batch_cuda`:
    the CUDA buffers handed to them are the kernels' own; not an extension of C++ sources alone),
    a distributed set-up (`init_dist`,
    `setup_ddp`) that sets up a process group (`dist.init_process_group`,
    `deepspeed.init_distributed`) and gives each process its GPU
    (`torch.cuda.set_device`) whatever backend it is handed, and, in a file that sets up NCCL
    (also by a `backend="nccl"` default), code that runs only in a multi-process job (after `if
    not dist.is_initialized(): return` or `if get_world_size() == 1: return`, under `if ddp:` or
    `if args.distributed:`) and a function that runs a collective (`dist.all_gather`,
    `dist.broadcast`...: its CUDA tensors are NCCL's buffers; also where the file leaves the
    process group to a launcher elsewhere, if the function runs it on every call: not one under
    `if dist.is_initialized():`, whose CUDA uses before that check a single process reaches; not
    where the file sets one up with Gloo), files that
    import a CUDA-only library (`apex`, `cupy`,
    `flash_attn`, `megatron`, `pycuda`, `tensorrt`, `transformer_engine`, `triton`, `vllm`...), also
    lazily inside a function, by name (`importlib.import_module("tensorrt")`,
    `optional_import("tensorrt")`) or through a backend module named for one (`from
    serving.backends.vllm import Engine`), a loop or a comprehension over `range(torch.cuda.device_count())`, a
    `"cuda"` variable that never reaches a placement or is replaced first (`device = "cuda"` then
    `if not torch.cuda.is_available(): device = "cpu"`), a default (`device="cuda"`,
    `device=torch.device("cuda")`) that every call overrides (`device=` passed each time): every
    call in the project, callers in other files included (or callers in its own file alone, where
    the project shows no other), for a function or class that another file
    calls (in a library, only a private one or one of its examples: users call the public ones
    too, so there it is likely; and one a package's `__init__` shows them, `from .devnet import
    DevNet`, is reported as if no call passed it: they call it as the library means), else every
    call in the file, of a private helper (`_name`), of a
    function nested in the one that calls it, or of any function in a script or a test module
    (of a public one or a method elsewhere, likely: a caller the project does not show may take
    it); a function every call of which runs under a CUDA check, callers in other files
    included (in project mode: `torchdevice check` and the flake8 plugin read the whole project), and
    non-placement uses of the string (`torch.autocast("cuda")`,
    `GradScaler(device="cuda")`, comparisons, logs, `f"cuda:{i}_peak"` keys), and a `.cuda(...)`
    call whose arguments `Tensor.cuda(device, non_blocking, memory_format)` does not take (another
    class's own method, such as a quantizer's `cuda(qtensor, meta=meta)`), nor `.cuda()` /
    `.to("cuda")` of a torch.nn module that holds no parameter or buffer
    (`nn.CrossEntropyLoss().cuda()`, `nn.ReLU().cuda()`: nothing moves, no GPU is needed), or
    of a module class of another of the project's files that keeps only numbers (a loss holding
    an `eps`, over `nn.Module` or such a module), nor a `device=` handed to a function or class
    of this file or another of the project's (`Pipeline(device="cuda:0")`,
    `super().__init__(device=device)`) that replaces it with the CPU, before reading it, where
    CUDA is not available (`if not torch.cuda.is_available(): device = "cpu"`, also with `"cuda"
    in device and`; `device = device if torch.cuda.is_available() else "cpu"`).

    Off by default: its sure findings were right 17 times in 17 at rounds 7-9, then 4 times in 25 at
    rounds 10-12 (a GPU index whose -1 means the CPU, a GPU-only simulator's import, a class
    documented for one GPU, fixed since; a CUDA check across a process pool, scripts GPU-only by
    design), 83 of 228 at rounds 10-22, 8 of 8 at round 23, 52 of 86 at round 24, 90 of 158 at round
    25, 6 of 12, 5 of 12 and 8 of 22 at rounds 26-28, 14 of 14 at round 29 (13 of them one
    library's), 3 of 12 at round 30, 8 of 32 at round 31, 1 of 1 at round 32, 3 of 5 at round 33,
    5 of 13 at round 34, 9 of 14 at round 35: 312 of 634 on code first seen
    (docs/precision.md). It comes on where the user says the project must run without CUDA
    (`runs-without-cuda = true` under `[tool.torchdevice]`, `torchdevice check
    --runs-without-cuda`, `flake8 --torchdevice-runs-without-cuda`), or with
    `--extend-select TDV001` (torchdevice, or `extend-select = ["TDV001"]` under
    `[tool.torchdevice]`) or `--extend-select=TDV001` (flake8). Whether a hard-coded `"cuda"` is a
    bug depends on whether the project runs without CUDA, and no single file says it: the command
    and the plugin read every file of the project first and infer a belief per package (`torchdevice
    beliefs`). A finding is sure (high) where the package falls back to the CPU ("the project falls
    back to the CPU in train.py:12") or the user says the project runs without CUDA; a guess (low)
    where the project requires CUDA ("launch.py:30 stops without CUDA"), or the file does: its
    program sets up NCCL on every run (`init_process_group("nccl")` in its own code, not in a
    function), it calls a GPU-only API outside any check (`faiss.StandardGpuResources()`,
    `faiss.Kmeans(d, k, gpu=True)`), it is a benchmark (by its path) that measures its GPU
    outside any check with no CPU fallback of its own (`torch.cuda.get_device_name()`, peak
    memory, CUDA events), or it imports, at its top, a module of the project that
    compiles CUDA kernels when imported (`load("op", sources=["op_kernel.cu"])`) or one that imports
    such a module, or, in an application, only files needing CUDA import it; likely (medium,
    `--confidence medium`) elsewhere, also where only the file itself falls back (a notebook
    teaching a fallback in one cell uses CUDA on purpose in the next). An argparse default
    (`--device` defaulting to `"cuda"`) is at most likely: the user chooses; and it is not reported
    where every read of the option in its file sits where a CUDA check found CUDA
    (`torch.device(args.device if torch.cuda.is_available() else "cpu")`: without CUDA the script
    takes the CPU), and the options are handed to no code the file does not show. Name your own check
    functions with `--torchdevice-guard-functions`; mark a GPU-only line `# noqa: TDV001`.

    ## Example
    ```python
    import torch

    model = torch.nn.Linear(4, 2).cuda()
    batch = torch.randn(8, 4, device="cuda")
    ```

    ## Use instead
    ```python
    import torch

    device = torch.accelerator.current_accelerator() or torch.device("cpu")
    model = torch.nn.Linear(4, 2).to(device)
    batch = torch.randn(8, 4, device=device)
    ```
    On PyTorch older than 2.6, choose with `torch.cuda.is_available()` /
    `torch.backends.mps.is_available()` in an `if`/`elif`/`else`.
    """

    code = "TDV001"
    name = "hardcoded-cuda-device"
    summary = 'Hard-coded `"cuda"` device or GPU-only `torch.cuda` call outside a CUDA check'
    precision = (
        "first look, high (project's belief): 17 of 17 (7-9), 83 of 228 (10-22), 8 of 8 (23), "
        "52 of 86 (24), 90 of 158 (25), 6 of 12 (26), 5 of 12 (27), 8 of 22 (28), 14 of 14 (29), 3 of 12 (30), "
        "8 of 32 (31), 1 of 1 (32), 3 of 5 (33), 5 of 13 (34), 9 of 14 (35), 12 of 35 (37), 9 of 10 (38), 0 of 18 (39)"
    )

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        if analysis.imports_library(CUDA_ONLY_LIBRARIES) or analysis.says_it_needs_cuda:
            return  # the whole file runs only where CUDA does
        guarded = _guarded_functions(analysis)
        skipped = analysis.cases_skipped_without_cuda()
        unused = analysis.replaced_defaults()  # ``device=torch.device("cuda")`` no run uses
        outside = _defaults_only_unseen_callers_take(analysis)
        for call in analysis.calls():
            if not _runs_guarded(call, guarded) and id(call.node) not in unused:
                for finding in self._check_call(call, analysis, guarded):
                    if id(finding.node) in skipped:
                        continue
                    if call.cuda_by_default is not None:
                        finding = _chosen_by_default(finding, call.cuda_by_default, analysis, settings)
                    finding = graded_by_cpu_support(finding, analysis, settings)
                    name = outside.get(id(finding.node))
                    yield finding if name is None else graded(finding, Confidence.MEDIUM, _ONLY_UNSEEN_CALLERS % name)

    def _check_call(self, call: CallFact, analysis: Analysis, guarded: set[int]) -> Iterator[Finding]:
        node = call.node
        if call.qualified == "torch.device" and analysis.only_compared(node):
            return  # ``x.device == torch.device("cuda")`` needs no GPU
        if call.method in ("to", "cuda") and analysis.moves_nothing(call.receiver_value):
            return  # ``nn.CrossEntropyLoss().cuda()`` has nothing to move: no GPU needed
        made_safe = analysis.replaced_without_cuda(call)  # ``Pipeline(device="cuda:0")`` that falls back itself
        for argument, index in _placement_arguments(call):
            keyword = call.node.args[index].keyword
            if keyword is not None and keyword.value in made_safe:
                continue
            if is_cuda_literal(argument):
                yield self._literal(argument, analysis)
                continue
            value = call.arguments[index]
            index_literal = device_index_literal(value)
            if index_literal is not None and _torch_placement(call):
                yield self._device_index(index_literal)  # ``.to(0)``, ``device = 0`` ... ``device=device``
                continue
            for held in _placements(call, index, value):
                origin = _hard_coded_origin(held, analysis, guarded)
                if origin is not None:
                    legacy = _legacy_type_name(origin, analysis)
                    yield self._legacy_type(origin, legacy) if legacy is not None else self._literal(origin, analysis)
        # ``FloatT = torch.cuda.FloatTensor`` ... ``FloatT(3)`` / ``x.type(FloatT)``
        used_types = [call.callee] + ([call.arguments[0]] if call.method == "type" and call.arguments else [])
        for value in used_types:
            origin = _hard_coded_origin(value, analysis, guarded)
            if origin is not None and origin is not node.func and _legacy_type_name(origin, analysis) is not None:
                yield self._legacy_type(origin, _name(origin, analysis))
        if call.method == "add_argument":  # ``parser.add_argument("--device", default="cuda")``
            default = keyword_argument(node, "default")
            if default is not None and is_cuda_literal(default) and _used_as_a_device(option_attribute(node), analysis):
                # The user chooses: ``--device cpu`` runs. Likely a bug only where the project runs
                # without CUDA by default, which no belief can tell from this line.
                yield replace(self._literal(default, analysis), confidence=Confidence.MEDIUM)
        if call.method == "cuda" and _fits_cuda_signature(node) and not is_instance_of_other_class(call.receiver_value):
            yield self.finding(
                cast(cst.Attribute, node.func).attr,  # a method call: its func is an Attribute
                f"`{quoted(analysis, node, 36)}` fails without a CUDA GPU; use .to(device), device = {CHOOSE_ONCE}",
            )
        if call.method == "pin_memory" and not node.args and not is_instance_of_other_class(call.receiver_value):
            yield self.finding(
                cast(cst.Attribute, node.func).attr,  # a method call: its func is an Attribute
                f"`{quoted(analysis, node)}` raises without a CUDA GPU; call it under "
                "`if torch.cuda.is_available():` (or let DataLoader(pin_memory=...) decide)",
            )
        if call.qualified in LEGACY_TENSOR_TYPES:
            yield self._legacy_type(node, call.qualified)
        elif call.qualified in NEEDS_GPU:
            yield self.finding(
                node,
                f"{call.qualified}() raises without a CUDA GPU; call it under `if torch.cuda.is_available():`",
            )
        if call.qualified == "torch.set_default_tensor_type" or call.method == "type":
            type_argument = positional_argument(node, 0)
            name = _legacy_type_name(type_argument, analysis) if type_argument is not None else None
            if type_argument is not None and name is not None:
                yield self._legacy_type(type_argument, name)

    def _literal(self, node: cst.BaseExpression, analysis: Analysis) -> Finding:
        value = string_value(node)
        # ``f"cuda:{rank}"``, ``"cuda:" + str(i)``: the index is chosen at run time, CUDA is not
        written = f'"{value}"' if value is not None else f"`{quoted(analysis, node, 24)}`"
        return self.finding(node, f"hard-coded {written} fails without a CUDA GPU; use {CHOOSE_ONCE}")

    def _device_index(self, node: cst.Integer) -> Finding:
        return self.finding(
            node,
            f"device index {node.value} (CUDA device {node.value}) fails without a CUDA GPU; use {CHOOSE_ONCE}",
        )

    def _legacy_type(self, node: cst.CSTNode, name: str) -> Finding:
        return self.finding(
            node,
            f"{name} hard-codes CUDA (and is deprecated); create tensors with "
            "torch.tensor(..., dtype=..., device=device) on a device chosen once",
        )
