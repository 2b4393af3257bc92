"""TDV004: ``torch.load`` without ``map_location``."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from ..analysis.queries import (
    Analysis,
    CallFact,
    Origin,
    Value,
    children,
    dotted_name,
    elements,
    every_node,
    is_optimizer,
    is_tensor,
    is_unknown,
    keyword_argument,
    load_with_map_location,
    may_be_on_accelerator,
    must_be_on_cpu,
    opens_a_file,
    own_nodes,
    path_to,
    positional_argument,
    reads_model_state,
    saves_a_file,
    string_value,
)
from ..confidence import Confidence
from ..knowledge.api import CHECKPOINT_CALLBACK, PATHS_A_CALLBACK_WROTE, UNIQUE_PER_RUN, names_an_optimizer
from ..project.beliefs import SAVES_NO_CHECKPOINT, SAVES_ONLY_CPU_TENSORS
from ..settings import Settings
from .base import (
    Finding,
    Fix,
    Rule,
    device_variable,
    graded,
    graded_by_cpu_support,
    keyword,
    shortened,
    source_text,
    with_argument,
)

# Objects whose saved state holds Python numbers or CPU tensors only: loading it needs no device.
DEVICE_FREE_STATES = ("sched", "scaler", "rng", "random", "generator", "epoch", "step")
# ``torch.set_rng_state(torch.load(...))``: RNG states are CPU byte tensors.
_RNG_SETTERS = frozenset({"torch.set_rng_state", "torch.random.set_rng_state"})


def _with_map_location(call: cst.Call, device: str | None) -> cst.Call:
    location = cst.parse_expression(device) if device is not None else cst.SimpleString('"cpu"')
    return with_argument(call, keyword("map_location", location))


def _arguments_handed_to(analysis: Analysis, takes: Callable[[CallFact, str], bool]) -> Iterator[cst.BaseExpression]:
    """The arguments of each call that ``takes`` accepts, asked with the call and the dotted name
    of its receiver ("" for none)."""
    for site in analysis.calls():
        receiver = dotted_name(site.receiver) if site.receiver is not None else None
        if takes(site, receiver or ""):
            yield from (arg.value for arg in site.node.args)


def _loads_device_free_states(analysis: Analysis) -> set[int]:
    """``scheduler.load_state_dict(torch.load(...))``, ``torch.set_rng_state(torch.load(...))``:
    the loaded state holds no tensor that remembers a device."""
    return {id(value) for value in _arguments_handed_to(analysis, _restores_a_device_free_state)}


def _restores_a_device_free_state(site: CallFact, receiver: str) -> bool:
    if site.qualified in _RNG_SETTERS:
        return True
    named = receiver.rsplit(".", 1)[-1].lower()
    return site.method == "load_state_dict" and any(word in named for word in DEVICE_FREE_STATES)


def _loads_into_optimizers(analysis: Analysis) -> set[int]:
    """``optimizer.load_state_dict(torch.load(...))``, also through a name: a resume's optimizer
    state, which the project may save as it is (``OPTIMIZER_STATES_AS_THEY_ARE``)."""
    values = list(_arguments_handed_to(analysis, _restores_an_optimizer))
    origins = (analysis.origin_node(analysis.value_of(value)) for value in values)
    return {id(value) for value in values} | {id(origin) for origin in origins if origin is not None}


def _restores_an_optimizer(site: CallFact, receiver: str) -> bool:
    return site.method == "load_state_dict" and (names_an_optimizer(receiver) or is_optimizer(site.receiver_value))


def _names_rng_states(analysis: Analysis, path: cst.BaseExpression) -> bool:
    """``torch.load(rng_file)``, ``torch.load(os.path.join(run, "rng_state.pth"))``: a file named
    for RNG states holds CPU byte tensors, CUDA generators' states too, which load anywhere
    (semantics/holds_cuda_rng_states_need_no_gpu.py)."""
    return "rng" in source_text(analysis, path).lower()


def _saved_paths(analysis: Analysis) -> dict[tuple[int, str], list[cst.CSTNode]]:
    """The calls that save each file, by (scope, path): ``torch.save(obj, path)``
    (``torch.jit.save`` too), any argument of a call named for saving (``fabric.save(path, state)``,
    ``trainer.save_checkpoint(path)``), and what a call of the file's own function passes to a
    parameter named for saving (``train(..., "best.pt")`` with ``def train(..., save_path)``). A
    helper that saves to a plain ``path`` is not enough: the fixtures' stand-in for a GPU machine
    is one. A load of the same path in the same function (or at module level, a script or
    notebook) *after* such a save reads back what this run just wrote, on this machine; one
    before it (a resume at the start of training) reads what an earlier run wrote, anywhere,
    unless what this code saves there is on the CPU (a cache of computed features)."""
    saved: dict[tuple[int, str], list[cst.CSTNode]] = {}
    for fact in analysis.calls():
        for path in _written_paths(fact):
            saved.setdefault((id(fact.scope.function), _path_key(analysis, path)), []).append(fact.node)
    for function in analysis.functions():
        positions = [param.name.value for param in function.positional_params()]
        for call in analysis.call_sites(function):
            site = analysis.call_at(call)
            for position, arg in enumerate(call.args):
                name = arg.keyword.value if arg.keyword is not None else None
                if name is None and not arg.star and position < len(positions):
                    name = positions[position]
                if site is not None and name is not None and "save" in name.lower():
                    saved.setdefault((id(site.scope.function), _path_key(analysis, arg.value)), []).append(call)
    return saved


def _read_back(analysis: Analysis, load: cst.Call, saves: list[cst.CSTNode]) -> bool:
    """Does a save of the load's file come before it in the code (so in the run), or does the
    code save only CPU tensors there (``if exists(p): x = torch.load(p)`` / ``else: ...
    torch.save(x, p)`` of features computed on the CPU)?"""
    line = analysis.line_of(load)
    return any(analysis.line_of(save) < line for save in saves) or (
        bool(saves) and all(_saves_cpu_tensors(analysis, save) for save in saves)
    )


def _under_a_saved_directory(analysis: Analysis, site: CallFact, path: cst.BaseExpression) -> bool:
    """Does the load read from under what a saver of another of the project's files was handed
    earlier in the same function, on every path to the load (``early_stopping(loss, model, path)``
    in the epoch loop, then ``torch.load(path + "/checkpoint.pth")``, or a name bound to such a
    path)? The same run wrote it, on this machine. Only whole names count: a saver handed
    ``args.save_dir`` (or all of ``args``) says nothing of ``args.resume``."""
    function = site.scope.function
    body: cst.CSTNode = function.node.body if function is not None else analysis.module
    named = _roots_of(path)
    if type(path) is cst.Name and function is not None:  # ``best = path + "/checkpoint.pth"``
        for node in own_nodes(function.node.body):
            if type(node) is cst.Assign and any(dotted_name(t.target) == path.value for t in node.targets):
                named |= _roots_of(node.value)
    savers = [
        other
        for other in analysis.calls()
        if other.scope.function is function
        and any(dotted_name(argument) in named for argument in analysis.saved_arguments(other))
    ]
    line = analysis.line_of(site.node)
    return any(analysis.line_of(other.node) < line and _runs_before(body, other.node, site.node) for other in savers)


def _named_for_this_run(analysis: Analysis, site: CallFact, path: cst.BaseExpression) -> bool:
    """Is the path one no earlier run could have written: built, here or where its names are bound
    (in the function, or at the module's top), from a fresh ``uuid.uuid4()``, a temporary file or
    folder, or the time the run started, or named by the run's checkpoint callback? Then the file is
    what this run wrote, on this machine (GCNII's ``checkpt_file = "pretrained/" + uuid.uuid4().hex + ".pt"``)."""
    function = site.scope.function
    top = [part for part in analysis.module.body if not isinstance(part, (cst.FunctionDef, cst.ClassDef))]
    path = _file_path(analysis, path)  # ``with open(os.path.join(args.work_dir, "model.pt"), "rb") as f``
    roots, sources = _roots_of(path), [path]
    for scope in [function.node.body, *top] if function is not None else top:
        sources += _assigned(scope, roots)
    if any(_made_for_this_run(analysis, source) for source in sources):
        return True
    # ``self.best_model_path``, set by another method (``fit()``) from the callback: every value the
    # class gives the attribute must be this run's.
    kept = {root for root in roots if function is not None and root.partition(".")[0] == function.self_name}
    assigned = [value for method in analysis.methods_beside(function) for value in _assigned(method.node.body, kept)]
    return bool(assigned) and all(_made_for_this_run(analysis, value) for value in assigned)


def _assigned(scope: cst.CSTNode, names: set[str]) -> list[cst.BaseExpression]:
    """The values the scope's own statements assign to any of ``names``."""
    return [
        node.value
        for node in own_nodes(scope)
        if type(node) is cst.Assign and any(dotted_name(target.target) in names for target in node.targets)
    ]


def _made_for_this_run(analysis: Analysis, source: cst.BaseExpression) -> bool:
    return any(
        (type(node) is cst.Call and analysis.qualify(node.func) in UNIQUE_PER_RUN) or _written_by_a_callback(node)
        for node in every_node(source)
    )


def _written_by_a_callback(node: cst.CSTNode) -> bool:
    """``checkpoint_callback.best_model_path``, ``trainer.checkpoint_callback.last_model_path``: a
    file the checkpoint callback of this process's trainer wrote (MambularRegressor's ``fit()``
    reloads its best checkpoint so)."""
    if type(node) is not cst.Attribute or node.attr.value not in PATHS_A_CALLBACK_WROTE:
        return False
    receiver = dotted_name(node.value) or ""
    return receiver.rpartition(".")[2] == CHECKPOINT_CALLBACK


def _roots_of(path: cst.BaseExpression) -> set[str]:
    """The names and attribute paths a path is built from, whole (``args.save_dir`` of
    ``os.path.join(args.save_dir, "best.pt")``; not ``os.path``, not ``args``)."""
    found: set[str] = set()
    pending: list[cst.CSTNode] = [path]
    while pending:
        node = pending.pop()
        name = dotted_name(node) if type(node) is cst.Name or type(node) is cst.Attribute else None
        if name is not None:
            found.add(name)
        elif type(node) is cst.Call:
            pending.extend(arg.value for arg in node.args)
        else:
            pending.extend(children(node))
    return found


# What may skip the statements inside it; a loop's body is taken to run (an epoch loop does).
_CONDITIONAL = (cst.If, cst.Try, cst.TryStar, cst.Match, cst.IfExp, cst.BooleanOperation)


def _runs_before(body: cst.CSTNode, saver: cst.CSTNode, load: cst.CSTNode) -> bool:
    """Is the saver call on every path to the load: no ``if`` or ``try`` holds it that does not
    hold the load too?"""
    saver_path, load_path = path_to(body, saver), path_to(body, load)
    if saver_path is None or load_path is None:
        return False
    shared = 0
    while shared < min(len(saver_path), len(load_path)) and saver_path[shared] is load_path[shared]:
        shared += 1
    return not any(isinstance(node, _CONDITIONAL) for node in saver_path[shared:])


def _saves_cpu_tensors(analysis: Analysis, save: cst.CSTNode) -> bool:
    site = analysis.call_at(save)
    saved = positional_argument(site.node, 0) if site is not None and saves_a_file(site) else None
    return saved is not None and is_tensor(value := analysis.value_of(saved)) and must_be_on_cpu(value)


def _written_elsewhere_in_the_file(
    analysis: Analysis, load: cst.Call, path: cst.BaseExpression, saved: dict[tuple[int, str], list[cst.CSTNode]]
) -> list[Value]:
    """What the file's other functions save to the load's path (``torch.save(data,
    self.processed_paths[0])`` in a dataset's ``process()``, read back by its ``__init__``): the
    values saved, or nothing where no other function writes that path."""
    key = _path_key(analysis, path)
    site = analysis.call_at(load)
    scope = id(site.scope.function) if site is not None else None
    saves = [save for (where, written), calls in saved.items() if written == key and where != scope for save in calls]
    sites = [analysis.call_at(save) for save in saves]
    values = [positional_argument(s.node, 0) if s is not None and saves_a_file(s) else None for s in sites]
    return [analysis.value_of(value) for value in values if value is not None] if all(values) else []


def _may_save_device_tensors(value: Value) -> bool:
    """Might a saved value hold a tensor on an accelerator: one the code may have moved
    (``model.state_dict()`` of a model it moves or is handed), or a value the code does not show
    (``optimizer.state_dict()``: the moments are where the parameters are)?"""
    return any(may_be_on_accelerator(part) or _not_shown(part) for part in elements(value, joined=False))


def _not_shown(part: Value) -> bool:
    return (is_unknown(part) or is_optimizer(part)) and not part.elements and not part.items and part.item is None


def _path_key(analysis: Analysis, path: cst.BaseExpression) -> str:
    """A path as written, but a string literal by its value (``'mlp.params'`` is ``"mlp.params"``),
    and a file object by the path it was opened from, and a path spelled again as a string."""
    path = _file_path(analysis, path)
    literal = string_value(path)
    return source_text(analysis, path) if literal is None else repr(literal)


def _file_path(analysis: Analysis, path: cst.BaseExpression) -> cst.BaseExpression:
    """The path a load reads: a file object's by the path it was opened from (``open(name, "rb")``,
    ``f`` of ``with open(name, "wb") as f``), a path spelled again as a string's by that path
    (``str(save_path)``), any other as written."""
    if (
        type(path) is cst.Call
        and len(path.args) == 1
        and (analysis.qualify(path.func) or dotted_name(path.func)) in _SAME_PATH
    ):
        path = path.args[0].value
    opened = path if type(path) is cst.Call else analysis.origin_node(analysis.value_of(path))
    if type(opened) is cst.Call and opens_a_file(opened) and opened.args:
        return opened.args[0].value
    return path


def _written_paths(site: CallFact) -> list[cst.BaseExpression]:
    if saves_a_file(site):
        path = positional_argument(site.node, 1) or keyword_argument(site.node, "f")
        return [path] if path is not None else []
    name = site.method or (site.qualified or "").rsplit(".", 1)[-1]
    return [arg.value for arg in site.node.args if not arg.star] if "save" in name.lower() else []


# Calls that give the path they are handed, as another type: ``torch.jit.load(str(save_path))``
# reads what ``model.save(save_path)`` wrote.
_SAME_PATH = frozenset({"str", "os.fspath", "os.path.abspath", "pathlib.Path"})
# A load nothing says reads a model's state: what training on a GPU leaves there.
_NOT_MODEL_STATE = " (no sign it is a model's state)"
# The loads that download what they read (``load_state_dict_from_url(url)``) name their path so.
_DOWNLOAD = "url"


class LoadWithoutMapLocation(Rule):
    """
    ## What it does
    Reports `torch.load(...)` called without `map_location` (as a keyword or the second positional
    argument), and the loads that take the same argument: `torch.jit.load(path)` (second
    positional) and `torch.hub.load_state_dict_from_url(url)` / `torch.utils.model_zoo.load_url(url)`
    (third positional, after `model_dir`).

    ## Why is this bad?
    A checkpoint remembers the device each tensor was saved from. Loaded without `map_location` on
    a machine without that device (a CPU-only CI runner, an Apple Silicon laptop, a machine with
    fewer GPUs), it fails with `RuntimeError: Attempting to deserialize object on a CUDA device but
    torch.cuda.is_available() is False`; `load_state_dict_from_url` fails the same way on weights
    published from a GPU, and a TorchScript archive saved on a GPU cannot be restored there either
    (`NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'CUDA'
    backend` on a CPU build of PyTorch).

    Not reported: calls that forward `**kwargs` (`map_location` may be among them); loads under a
    CUDA check or in code named for GPUs (FSDP, CUDA-only components); loads that run only after
    the same function used CUDA with no check (`model = Net().cuda()` above on every path: without
    CUDA that line stops the run first, and TDV001 reports it); loads of what this file
    itself saves to the same path (`torch.save(state, path)` ... `torch.load(path)`, `torch.jit.save`
    ... `torch.jit.load`, in the same function, or both at module level: the same run on the same
    machine; a string path however quoted, or a file object opened on it: `with open(path, "wb") as
    f: torch.save(x, f)` ... `torch.load(open(path, "rb"))`), or that a call of the file's own
    function writes there (`train(..., "best.pt")` with a `save_path` parameter); loads from under
    what a saver of another of the project's files (a function, or a class whose instances save
    when called, that `torch.save`s under that argument) was handed earlier in the same function
    (`early_stopping(loss, model, path)` in the epoch loop, then `torch.load(path +
    "/checkpoint.pth")`: project mode reads the saver); loads of a path no earlier run could
    have written, built (there, or where its names are bound) from `uuid.uuid4()`, a temporary file
    or folder, or the time the run read (`checkpt_file = "pretrained/" + uuid.uuid4().hex +
    ".pt"`), or read off the checkpoint callback of the run's trainer
    (`torch.load(checkpoint_callback.best_model_path)` after `trainer.fit(...)`); states that hold
    no device tensors: schedulers, gradient scalers, RNG states
    (`scheduler.load_state_dict(torch.load(...))`, `torch.set_rng_state(torch.load(...))`, a file
    named for RNG states: `torch.load(rng_file)`).
    A load is sure only where the code says it reads a model's state, what training on a GPU
    leaves there: its result reaches `load_state_dict` (directly or through the name it is bound
    to), or the names of the result, of the path, of the load itself or of the function that
    returns it say so (`ckpt`, `checkpoint`, `state_dict`, `sd`, `weights`, `model`, `resume`, a
    `.pth` / `.ckpt` / `.bin` file), and none says data (`emb`, `vocab`, `stats`, `mean`, `norm`,
    `cache`, `data`: `pretrained = torch.load(emb_file)` reads word vectors). Other loads (a
    dataset's cache: `self.data, self.slices =
    torch.load(self.processed_paths[0])`; embeddings; fitted statistics; constants shipped with
    the package) are likely (medium): such files are written from data, on the CPU as a rule,
    though a GPU job may write them too. So is a load in the branch a flag's default takes for CUDA
    (`else` of `if cpu:` with `cpu=False`): a user without CUDA passes the flag, one who does not
    stops at that branch's `.cuda()` first (TDV001 reports the default), unless the user says the
    project runs without CUDA.
    Downloads (`load_state_dict_from_url`, `load_url`) are reported as guesses (low confidence):
    weights published for download are saved from the CPU as a rule (torchvision's are), though
    nothing in the code shows that a given file is. In project mode, where the project's own code
    saves no checkpoint at all (an inference repository loading published weights), what it loads
    was written elsewhere and may or may not hold CUDA tensors: likely (medium), "the project saves
    no checkpoint"; where every `torch.save` in it writes tensors copied to the CPU first
    (`torch.save(embedding.cpu(), path)`, or a state dict whose values a loop replaced with
    `.cpu()` copies), a guess (low), citing that save. An optimizer's state saved as it is
    (`torch.save(optimizer.state_dict(), path)`) counts for neither: a load into an optimizer
    there stays sure.

    Off by default: on library code most loads resume the library's own checkpoints on the same
    kind of machine (docs/precision.md). Enable it for training and inference scripts, where a
    checkpoint made on a GPU machine meets a laptop: `--extend-select TDV004` (torchdevice, or
    `extend-select = ["TDV004"]` under `[tool.torchdevice]`) or `--extend-select=TDV004` (flake8).

    ## Fix
    Unsafe (`--unsafe-fixes`): adds `map_location=device` when the code places things on a `device`
    variable (`device`, `self.device`, `args.device`) that is in scope at the load: a parameter of
    its function, or a name bound on an earlier line of that function, of a function around it or
    of the module (`self.device` also needs the class to set it). A `device` of another function,
    or one bound after the load, would be an undefined name: the fix then adds
    `map_location="cpu"`. Loading onto the CPU always works, but a GPU run that reloads its own
    model and keeps using it on the device would then compute on the CPU or fail later.

    ## Example
    ```python
    import torch

    model = torch.nn.Linear(4, 2)
    state = torch.load("pretrained.pt")
    model.load_state_dict(state)
    ```

    ## Use instead
    ```python
    import torch

    model = torch.nn.Linear(4, 2)
    state = torch.load("pretrained.pt", map_location="cpu")
    model.load_state_dict(state)
    ```
    Use `map_location=device` to load straight onto the device you train on.
    """

    code = "TDV004"
    name = "load-without-map-location"
    summary = "`torch.load()` (or `torch.jit.load()`, `load_state_dict_from_url()`) without `map_location`"
    precision = (
        "first look, high: 40 of 46 (rounds 7-9), 63 of 185 (10-22), 0 of 2 (23), 4 of 25 (24), 1 of 16 (25), "
        "1 of 4 (26), 7 of 13 (27), 6 of 27 (28), 11 of 17 (29), 5 of 9 (30), 6 of 7 (31), 3 of 5 (32), 3 of 3 (33), "
        "4 of 12 (34), 10 of 12 (35), 8 of 15 (37), 4 of 13 (38), 1 of 2 (39)"
    )

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        device_free = _loads_device_free_states(analysis)
        resumed = _loads_into_optimizers(analysis) if settings.checkpoints.note else set()
        saved = _saved_paths(analysis)
        for site in analysis.calls():
            call = site.node
            load = load_with_map_location(site)
            if load is None or any(arg.star == "**" for arg in call.args):
                continue
            path_keyword, map_location_position = load
            if (
                keyword_argument(call, "map_location") is not None
                or positional_argument(call, map_location_position) is not None
            ):
                continue
            path = positional_argument(call, 0) or keyword_argument(call, path_keyword)
            if (
                site.guarded
                or site.cuda_required  # TDV001 reports the ``.cuda()`` that stops a CPU run first
                or site.scope.cuda_specific
                or id(call) in device_free
                or (path is not None and _names_rng_states(analysis, path))
                or (
                    path is not None
                    and _read_back(analysis, call, saved.get((id(site.scope.function), _path_key(analysis, path)), []))
                )
                or (path is not None and _under_a_saved_directory(analysis, site, path))
                or (path is not None and _named_for_this_run(analysis, site, path))
            ):
                continue
            written_here = _written_elsewhere_in_the_file(analysis, call, path, saved) if path is not None else []
            device = device_variable(analysis, site)
            location = device or '"cpu"'
            shown = shortened(location, 20)
            finding = self.finding(
                call,
                f"{(site.qualified or '').rsplit('.', 1)[-1]}() without map_location: a file saved on a GPU fails "
                f"to load on a CPU-only or MPS machine; pass map_location={shown}",
                Fix(call, _with_map_location(call, device), safe=False, description=f"add map_location={location}"),
                # Weights published for download are saved from the CPU as a rule (torchvision's
                # are), and a file this code writes from values it never shows on a device (a
                # dataset's cache) holds CPU tensors: that this one does not, nothing shows.
                Confidence.LOW
                if path_keyword == _DOWNLOAD or (written_here and not any(map(_may_save_device_tensors, written_here)))
                else Confidence.HIGH,
            )
            finding = graded_by_cpu_support(finding, analysis, settings)
            if site.cuda_by_default is not None and not settings.runs_without_cuda:
                finding = _in_a_branch_a_default_takes(finding, analysis, site.cuda_by_default)
            if not _reads_model_state(analysis, site, path):  # what the file holds, whoever runs it
                finding = graded(finding, Confidence.MEDIUM, _NOT_MODEL_STATE)
            yield finding if id(call) in resumed else _graded_by_what_the_project_saves(finding, settings)


def _in_a_branch_a_default_takes(finding: Finding, analysis: Analysis, flag: Origin) -> Finding:
    """A load in the branch a flag's default takes for CUDA (``else`` of ``if cpu:`` with
    ``cpu=False``, First Order Motion's demo): a user without CUDA passes the flag, and one who does
    not has stopped at the branch's ``.cuda()`` (TDV001 reports that default): likely, not sure."""
    line = analysis.line_of(flag.node)
    return graded(finding, Confidence.MEDIUM, f" (in the CUDA branch a default at line {line} takes)")


def _reads_model_state(analysis: Analysis, site: CallFact, path: cst.BaseExpression | None) -> bool:
    function = site.scope.function
    scope = function.node if function is not None else analysis.module
    return reads_model_state(scope, site.node, path, function.name if function is not None else "")


def _graded_by_what_the_project_saves(finding: Finding, settings: Settings) -> Finding:
    """Where the checkpoints come from, as far as the project tells: a project that saves none loads
    what was written elsewhere (weights published for download, another project's), which may or
    may not hold CUDA tensors: likely, not sure; one whose every ``torch.save`` writes tensors it
    copied to the CPU loads CPU checkpoints of its own: a guess (round 21: GPU-saved files in 0 of
    13 such sure findings). Optimizer states saved as they are count for neither (a load into an
    optimizer is not graded here where the project saves them)."""
    saves = settings.checkpoints
    if saves.verdict == SAVES_ONLY_CPU_TENSORS and saves.evidence:
        first = saves.evidence[0]
        cited = f" (every checkpoint the project saves holds CPU tensors: {first.path}:{first.line})"
        return graded(finding, Confidence.LOW, cited)
    if saves.verdict == SAVES_NO_CHECKPOINT:
        cited = " (the project saves no checkpoint: the file was written elsewhere)"
        return graded(finding, Confidence.MEDIUM, cited)
    return finding
