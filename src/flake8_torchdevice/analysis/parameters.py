"""What each parameter of one of the file's functions holds while its body is recorded (part of
the interpreter): what the body shows of it (``x.unsqueeze(0)``: a tensor), its annotation, its
default (``device="cuda"``, ``use_gpu=True``, what every call without the argument gets) and, for
a module's ``forward()``, inputs where the module is. A call of the function binds its arguments
instead (``summaries``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from .cuda_words import chooses_cuda_by_default, flag_polarity
from .definitions import FunctionInfo
from .domain import CPU, GIVEN, Kind, Origin, Value, must_be_on_accelerator, tensor, with_module
from .evidence import Evidence
from .syntax import all_params

if TYPE_CHECKING:
    from .parts import InterpreterParts as _Base
else:
    _Base = object

# Where the module a method belongs to is: the place of ``self`` in every module method.
SELF = with_module("self")
_MODULE_ENTRY_METHODS = frozenset({"forward", "__call__"})


class ParameterEvaluator(_Base):
    def parameter_values(self, info: FunctionInfo) -> dict[str, Value]:
        """What each parameter holds when the body is recorded, from what the body shows."""
        values = {}
        evidence = info.evidence
        owner = self.definitions.owner(info)
        in_module = owner is not None and self.is_module_class(owner) and not owner.stateless_callable()
        inputs = in_module and info.name in _MODULE_ENTRY_METHODS
        batch = self.definitions.batch_parameter(info)
        for param in all_params(info.node.params):
            name = param.name.value
            if name == info.self_name:
                continue
            if param is batch:
                values[name] = Value(kind=Kind.BATCH, places=CPU)  # ignite hands it a DataLoader batch
                continue
            kind = self._parameter_kind(param, name, evidence, inputs)
            default = self.default_values.get(id(param))
            if (
                kind is None
                and default is not None
                and default.kind is Kind.DEVICE
                and must_be_on_accelerator(default)
                and not self.definitions.default_always_replaced(info, param)
            ):
                values[name] = default  # ``device="cuda"``: what a call without the argument gets
                continue
            flag = self._default_cuda_flag(info, param)
            if kind is None and flag is not None:
                values[name] = flag
                continue
            if kind is Kind.TENSOR:
                values[name] = tensor(SELF if in_module else GIVEN)
            elif kind is Kind.MODULE:
                values[name] = Value(kind=Kind.MODULE, places=with_module(name))
            elif kind is None:  # bound even when unknown: narrowing it must not make it one branch's
                # ``exponent=2``: a number by its default, 0-dim should a caller pass a tensor instead
                numeric = default is not None and default.kind is Kind.SCALAR
                values[name] = Value(places=GIVEN, scalar=numeric)
            else:
                values[name] = Value(kind=kind)
        return values

    def _default_cuda_flag(self, info: FunctionInfo, param: cst.Param) -> Value | None:
        """``use_gpu=True``: a flag that chooses CUDA for every call that does not pass it, unless
        every call in the file does. It carries the parameter as its origin, for the branch it
        guards to cite."""
        polarity = flag_polarity(param.name.value)
        if param.default is None or not chooses_cuda_by_default(polarity, param.default):
            return None
        if self.definitions.default_always_replaced(info, param):
            return None
        return Value(kind=Kind.SCALAR, polarity=polarity, origin=Origin(param, f"`{param.name.value}` defaults to it"))

    def _parameter_kind(self, param: cst.Param, name: str, evidence: Evidence, inputs: bool) -> Kind | None:
        annotation = param.annotation.annotation if param.annotation is not None else None
        annotated, shown = self.annotation_kind(annotation) if annotation else None, evidence.kind_of(name)
        if annotated is Kind.TENSOR or (annotated is Kind.OBJECT and shown is not Kind.MODULE):
            return annotated  # an object's ``to()`` and ``detach()`` are its class's own
        if shown is not None:
            return shown
        plain = param.default is None and annotation is None and param.star == ""
        if inputs and plain and not evidence.calls_what_no_tensor_has(name):
            return Kind.TENSOR  # an input of forward(): where the module is
        return None
