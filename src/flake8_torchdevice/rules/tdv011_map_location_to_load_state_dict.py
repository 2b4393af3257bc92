"""TDV011: ``map_location=`` given to ``load_state_dict()``, which does not take it."""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.queries import Analysis, CallFact, is_instance_of_other_class, is_module, keyword_argument
from ..settings import Settings
from .base import Finding, Rule


def _function_of_an_import(site: CallFact, analysis: Analysis) -> bool:
    """The receiver is an imported module (not a module instance bound to the same name later)."""
    receiver = site.receiver
    return receiver is not None and analysis.names_an_import(receiver) and not is_module(site.receiver_value)


class MapLocationToLoadStateDict(Rule):
    """
    ## What it does
    Reports `map_location=` passed to `load_state_dict()`: `model.load_state_dict(state,
    map_location=device)`.

    ## Why is this bad?
    `nn.Module.load_state_dict()` (and an optimizer's) takes no `map_location`: it raises
    `TypeError: Module.load_state_dict() got an unexpected keyword argument 'map_location'` on every
    machine. The argument belongs to `torch.load`, which decides where the loaded tensors go;
    `load_state_dict` then copies them into the module's own tensors, wherever those are.

    Not reported: calls that unpack `**kwargs` into `load_state_dict`, `load_state_dict` of
    other classes (not a module or optimizer), whose own signature may take `map_location`, and
    functions of an imported module (`checkpoints.load_state_dict(path, map_location="cpu")`, a
    project's own loader, relative imports too).

    ## Example
    ```python
    import torch

    model = torch.nn.Linear(4, 2)
    state = torch.load("pretrained.pt")
    model.load_state_dict(state, map_location="cpu")
    ```

    ## Use instead
    ```python
    import torch

    model = torch.nn.Linear(4, 2)
    state = torch.load("pretrained.pt", map_location="cpu")
    model.load_state_dict(state)
    ```
    """

    code = "TDV011"
    name = "map-location-to-load-state-dict"
    summary = "`map_location=` passed to `load_state_dict()`, which raises TypeError; it belongs to `torch.load`"
    precision = (
        "no findings on the tuned corpora; on code first seen, 0 of 3 (one cause, fixed since); "
        "none in round 36's 789,897 lines"
    )
    fails_only_on_an_accelerator = False  # the unexpected keyword raises on every device

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        for site in analysis.calls():
            if site.method != "load_state_dict" or is_instance_of_other_class(site.receiver_value):
                continue  # another class's load_state_dict may well take map_location
            if _function_of_an_import(site, analysis):
                continue  # ``utils.load_state_dict(path, map_location=...)``: a project's own function
            misplaced = keyword_argument(site.node, "map_location")
            if misplaced is not None:
                yield self.finding(
                    misplaced,
                    "load_state_dict() takes no map_location: TypeError on every machine; "
                    "pass it to torch.load(path, map_location=device) instead",
                )
