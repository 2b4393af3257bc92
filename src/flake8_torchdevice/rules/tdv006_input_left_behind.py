"""TDV006: a module moved to a device, called with an input left on the CPU."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..analysis.queries import (
    Analysis,
    CallFact,
    Value,
    device_code,
    elements,
    evidence_confidence,
    is_array,
    is_layer_with_state,
    is_module,
    is_tensor,
    is_zero_dim,
    must_be_on_accelerator,
    must_be_on_cpu,
    place_name,
    place_unknown,
    takes_inputs_anywhere,
)
from ..confidence import Confidence
from ..knowledge.api import runs_module
from ..settings import Settings
from .base import Finding, Rule, quoted, shortened


def _module_called(site: CallFact) -> Value | None:
    """The module a call runs: ``model(x)``, ``model.generate(ids)``."""
    if is_module(site.callee):
        return site.callee
    if site.method is not None and runs_module(site.method) and is_module(site.receiver_value):
        return site.receiver_value
    return None


def _inputs(site: CallFact) -> Iterator[tuple[cst.Arg, Value]]:
    """Each tensor a call passes, ``**inputs`` included (a tokenizer's ``BatchEncoding``)."""
    for arg, value in zip(site.node.args, site.arguments):
        if arg.star == "**":
            for item in elements(value):
                if item is not value:
                    yield arg, item
                    break
        elif not arg.star:
            yield arg, value


class InputLeftBehind(Rule):
    """
    ## What it does
    Reports a call of a module the code moved to a device (`model.to(device)`, `.cuda()`,
    `Net().to(device)`, in `__init__` as `self.model.to(self.device)` and used in another method)
    with an argument the code shows is on the CPU: a batch from `for inputs, labels in loader:`
    that was never moved, a tensor created without `device=`, a tokenizer's output unpacked with
    `**inputs`, `torch.nn.utils.rnn.pad_sequence(...)` of CPU tensors. `model.generate(ids)` and
    `model.forward(x)` count as calls of the model, and a model loaded with
    `from_pretrained(..., device_map="cuda")` (one device) is on that device.

    What the libraries around torch hand back is read from their source, with the version, in
    `knowledge/libraries.py`: a `DataLoader`'s batches (on the CPU, unless its dataset holds
    tensors on the device, also through `random_split` or `Subset`, or a dataset class of the file
    returns them there from `__getitem__` (`return x.to(device), y.to(device)`), or its
    `collate_fn` is given a device, `partial(collate, device=device)`, or is a function or a
    method of the file that returns the batch moved, `collate_fn=dataset.collate_fn`, given the
    list of the dataset's items; a tuple item keeps each element's place: `return x.to(device), y`
    leaves the labels on the CPU),
    a legacy torchtext `BucketIterator`/`Iterator`'s `batch.text` and `batch.label` (on the CPU
    unless built with `device=`; likely only, from `torchtext.data`, whose 0.2 releases made them on
    the current GPU), an AllenNLP loader's `TensorDict`s
    (unless given `cuda_device=` or `set_target_device()`), a torchvision `ToTensor()` or
    `transforms.Compose([...])` result and a `datasets.MNIST(..., transform=...)[i]` image, and a
    Hugging Face tokenizer's tensors with `return_tensors="pt"` are all on the CPU.

    ## Why is this bad?
    The module's parameters are on the device and its input is not: `RuntimeError: Expected all
    tensors to be on the same device` (or `Input type (torch.FloatTensor) and weight type
    (torch.cuda.FloatTensor) should be the same`) on the first batch. On a CPU-only machine the
    code works, so tests do not catch it.

    The other way round too: a torch.nn layer with parameters that the code builds and never moves
    (`layer = nn.Linear(3, 3)`), called with an input the code moved to a device (`layer(x.to(device))`,
    `nn.Linear(3, 3)(torch.zeros(3, device="cuda"))`). Layers without parameters or buffers (`nn.ReLU()`,
    a loss such as `nn.BCELoss()`, a module class of the project that keeps only numbers, dicts of
    them and objects of its plain classes) run wherever their input is, moved or not, and are not
    reported either way (inputs on two devices are TDV005's).

    Not reported: models wrapped in `DataParallel` / `DistributedDataParallel` or spread over the
    devices by `device_map="auto"` (their hooks move the inputs), models whose place the code does not show,
    CPU 0-dim inputs, and calls under a CPU-only branch.

    ## Example
    ```python
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    model = torch.nn.Linear(4, 2).to(device)
    loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)
    for (inputs,) in loader:
        outputs = model(inputs)
    ```

    ## Use instead
    ```python
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    model = torch.nn.Linear(4, 2).to(device)
    loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)
    for (inputs,) in loader:
        outputs = model(inputs.to(device))
    ```

    Off by default since round 15: its sure findings were right 2 times in 2 at round 10, then
    fell short twice on code first seen (round 11: 0 of 3; round 15: 0 of 1, a batch whose entries
    a loop moved back one key at a time; both fixed since; round 14's five depended on torchtext's
    version). Enable it with `--extend-select TDV006` (torchdevice, or `extend-select = ["TDV006"]`
    under `[tool.torchdevice]`) or `--extend-select=TDV006` (flake8).
    """

    code = "TDV006"
    name = "input-left-behind"
    summary = "A module moved to a device is called with a tensor left on the CPU, or a CPU layer with a moved one"
    precision = (
        "first look: high 2 of 2 (round 10), 0 of 3 (11), 0 of 1 (15), 1 of 1 (17), 0 of 3 (25), 0 of 3 (27), "
        "0 of 1 (36), 0 of 1 (37); "
        "medium 0 of 17 (12-17), 0 of 1 (22), 0 of 1 (23), 0 of 23 (36), 0 of 1 (37); low 0 of 1 (30)"
    )
    depends_on_callers = True  # where a helper's parameters are is where its callers put them

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        for site in analysis.calls():
            module = _module_called(site)
            if module is None or site.without_cuda:
                continue
            moved = must_be_on_accelerator(module, through_modules=False) and not analysis.moves_nothing(module)
            if moved and not takes_inputs_anywhere(module):
                yield from self._left_on_cpu(analysis, site, module)
            elif must_be_on_cpu(module) and is_layer_with_state(module):
                yield from self._module_left_on_cpu(analysis, site, module)
            yield from self._left_behind_its_siblings(analysis, site)

    def _left_on_cpu(self, analysis: Analysis, site: CallFact, module: Value) -> Iterator[Finding]:
        for arg, value in _inputs(site):
            if is_tensor(value) and must_be_on_cpu(value) and not is_zero_dim(value):
                model = quoted(analysis, site.node.func, 24)
                device = shortened(device_code(module), 16)
                if isinstance(arg.value, (cst.Name, cst.Attribute)):
                    name = quoted(analysis, arg.value, 20)
                    advice = f"move it first: `{name} = {name}.to({device})`"
                else:
                    name = quoted(analysis, arg.value, 28)
                    advice = f"create it with device={device} or add .to({device})"
                yield self.finding(
                    arg.value,
                    confidence=evidence_confidence(module, value),
                    message=f"`{model}` is on {place_name(module)} but its input `{name}` is on the CPU, which fails "
                    f"on a GPU; {advice}",
                )

    def _module_left_on_cpu(self, analysis: Analysis, site: CallFact, module: Value) -> Iterator[Finding]:
        """``layer = nn.Linear(...)`` never moved, ``layer(batch.to(device))``: the other way round.

        Sure for a layer built in the call itself; likely for one held in a name, which an alias
        may have moved in place (``for block in blocks: block.to(d)``); never for one read out of a
        container or an attribute, where such aliases are the rule."""
        callee = site.node.func
        if not isinstance(callee, (cst.Call, cst.Name)):
            return
        confidence = Confidence.HIGH if isinstance(callee, cst.Call) else Confidence.MEDIUM
        for arg, value in _inputs(site):
            if is_tensor(value) and must_be_on_accelerator(value, through_modules=False) and not is_zero_dim(value):
                model, device = quoted(analysis, site.node.func, 24), shortened(device_code(value), 16)
                yield self.finding(
                    site.node.func,
                    f"`{model}` is on the CPU, never moved, but its input `{quoted(analysis, arg.value, 24)}` is on "
                    f"{place_name(value)}, which fails on a GPU; move the model: `.to({device})`",
                    confidence=min(confidence, evidence_confidence(module, value)),
                )
                return

    def _left_behind_its_siblings(self, analysis: Analysis, site: CallFact) -> Iterator[Finding]:
        """``model(rxn_fp, solvents.to(device))``: the author moves the batch, but not all of it."""
        inputs = list(_inputs(site))
        # Moved here: a parameter its caller placed is no sign that this function moves its batch.
        moved = [
            value
            for _, value in inputs
            if is_tensor(value)
            and must_be_on_accelerator(value, through_modules=False)
            and not analysis.passed_in(value)
        ]
        if not moved:
            return
        sibling = moved[0]
        for arg, value in inputs:
            # Only a parameter of the function, handed in by its caller: a local computed from a
            # module's output or split from a moved batch is usually on the device already. An
            # array-like value fed to a torch module is a tensor: NumPy arrays do not go there.
            if not isinstance(arg.value, cst.Name) or not place_unknown(value):
                continue
            if not analysis.is_parameter(site.scope.function, arg.value.value):
                continue
            if is_tensor(value) or is_array(value):
                name = shortened(arg.value.value, 20)
                why = analysis.explain(sibling)
                yield self.finding(
                    arg.value,
                    f"`{name}` goes into `{quoted(analysis, site.node.func, 24)}` unmoved, next to inputs on "
                    f"{place_name(sibling)}{f' ({why})' if why else ''}, which fails on a GPU; "
                    f"move it too: `.to({shortened(device_code(sibling), 16)})`",
                    # Inferred: the caller may have put it on the device already (arguments travel together).
                    confidence=Confidence.MEDIUM,
                )
