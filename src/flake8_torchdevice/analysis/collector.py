"""The syntactic pass that fills ``Definitions``: one walk over the whole module, before the flow
analysis, noting what each scope defines and shows (see ``definitions``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from ..knowledge.api import DEVICE_TYPE_CALLS, WRITTEN_FOR_GPUS
from .bindings import BindingRecorder
from .containers import every_element_stores
from .cuda_words import names_cuda_kernels
from .definitions import ClassInfo, Definitions, FunctionInfo
from .evidence import Evidence
from .imports import bound_name, dotted_name, imported_name
from .lazy import EVERY_ATTRIBUTE, lazily_set, returns_once_done
from .literals import defaults_to_nccl, loads_cuda_kernels, names_nccl, string_value
from .syntax import (
    all_params,
    bound_names,
    children,
    fits_module_method,
    fits_tensor_move,
    is_collective,
    own_attribute,
    registered_attribute,
    runs_as_a_program,
    spawns_one_per_gpu,
    tests_main,
)

# Methods whose arguments are tensors: ``y.expand_as(x)`` shows ``x`` is a tensor too.
_TENSOR_ARGUMENT_METHODS = frozenset({"expand_as", "view_as", "type_as", "reshape_as", "copy_", "new_tensor"})
# Calls whose ``device=`` names a device *type* (mixed precision), by the name the code calls
# them by (``autocast``, ``amp.GradScaler``): the last part of knowledge's qualified names.
_DEVICE_TYPE_CALLS = frozenset(name.rsplit(".", 1)[-1] for name in DEVICE_TYPE_CALLS)
# Calls that check their first argument's type.
_TYPE_CHECKS = frozenset({"isinstance", "is_tensor", "type", "hasattr", "is_floating_point"})
_MODULE_ARGUMENT_CALLS = frozenset({"DataParallel", "DistributedDataParallel", "compile"})  # first argument: a module
_IMPORTS_BY_NAME = frozenset({"import_module", "__import__", "optional_import", "try_import"})


def collect(module: cst.Module) -> Definitions:
    definitions = Definitions()
    _Collector(definitions).scope(module.body, definitions.module_evidence, None)
    definitions.is_script |= runs_as_a_program(module, definitions.top_functions)
    return definitions


class _Collector:
    def __init__(self, definitions: Definitions) -> None:
        self.definitions = definitions
        self.evidence_stack: list[Evidence] = []
        self.self_names: list[str | None] = []
        self.loop_stack: list[set[str]] = []
        self.lazy_stack: list[frozenset[str]] = []  # attributes tested for "not set yet" around here
        self.class_methods: list[dict[str, cst.FunctionDef]] = []  # of the classes around here
        self.depth = 0  # functions and classes around the node being visited
        self.bindings = BindingRecorder(definitions)
        self.kernel_modules: set[str] = set()  # names bound to compiled kernels: ``ext = load_ext(...)``

    def scope(self, body: Sequence[cst.CSTNode], evidence: Evidence, self_name: str | None) -> None:
        self.evidence_stack.append(evidence)
        self.self_names.append(self_name)
        saved_loops, self.loop_stack = self.loop_stack, []
        lazy_depth = len(self.lazy_stack)
        try:
            for statement in body:
                self.visit(statement)
                if self_name is not None and returns_once_done(statement, body, self_name):
                    self.lazy_stack.append(EVERY_ATTRIBUTE)  # what follows runs once
        finally:
            del self.lazy_stack[lazy_depth:]
            self.evidence_stack.pop()
            self.self_names.pop()
            self.loop_stack = saved_loops

    def visit(self, node: cst.CSTNode) -> None:
        handler = _HANDLERS.get(type(node))
        if handler is None or handler(self, node):
            for child in children(node):
                if type(child) not in _LEAVES:
                    self.visit(child)

    # Each handler notes what its node shows; it returns True when the children remain to visit.
    def _function(self, node: cst.FunctionDef) -> bool:
        self.function(node, None)
        return False

    def _class(self, node: cst.ClassDef) -> bool:
        self.klass(node)
        return False

    def _call(self, node: cst.Call) -> bool:
        self.call(node)
        return True

    def _note_batch_handler(self, engine: cst.Call) -> None:
        """ignite's ``Engine(step)`` / ``Engine(process_function=step)`` / ``Engine(Step(...))``."""
        handler = next(
            (arg.value for arg in engine.args if arg.keyword is None or arg.keyword.value == "process_function"),
            None,
        )
        if type(handler) is cst.Call:  # an instance: its class's ``__call__`` handles the batches
            handler = handler.func
        if type(handler) is cst.Name:
            self.definitions.batch_handlers.add(handler.value)

    def _written_for_gpus(self, name: str) -> bool:
        """``torch.cuda.graph`` (``cuda.graph``), ``torch.nn.parallel.replicate``, ``ext.three_nn_forward``."""
        imported = (module for module in self.definitions.imported_modules if module.endswith(f".{name}"))
        known = (name, f"torch.{name}", *imported)
        return name.rpartition(".")[0] in self.kernel_modules or any(item in WRITTEN_FOR_GPUS for item in known)

    def _import(self, node: cst.Import | cst.ImportFrom) -> bool:
        for alias in node.names if not isinstance(node.names, cst.ImportStar) else ():
            self.definitions.imported_names.add(name := bound_name(alias))
            self.bindings.note(name, node)
            imported = imported_name(node, alias)
            if names_cuda_kernels(imported):  # its functions are CUDA kernels: ``pointnet2_cuda.fps(...)``
                self.kernel_modules.add(imported if alias.asname is None and type(node) is cst.Import else name)
        if isinstance(node, cst.Import):
            self.definitions.imported_modules.update(dotted_name(alias.name) or "" for alias in node.names)
        elif node.module is not None and not node.relative:
            module = dotted_name(node.module) or ""
            self.definitions.imported_modules.add(module)
            if not isinstance(node.names, cst.ImportStar):  # ``from pkg.backends import vllm``
                self.definitions.imported_modules.update(
                    f"{module}.{alias.name.value}" for alias in node.names if type(alias.name) is cst.Name
                )
        return False

    def _attribute(self, node: cst.Attribute) -> bool:
        self.attribute(node)
        if node.attr.value in ("type", "index"):
            self.definitions.compared.add(id(node.value))
        return True

    def _subscript(self, node: cst.Subscript) -> bool:
        if len(node.slice) > 1:  # ``x[idx, :]``: only arrays take several axes
            self._note(self.evidence_stack[-1].indexed_by_axes, node.value)
        return True

    def _comparison(self, node: cst.Comparison) -> bool:
        compared = self.definitions.compared
        compared.add(id(node.left))
        compared.update(id(target.comparator) for target in node.comparisons)
        return True

    def _unpacked(self, node: cst.Arg | cst.StarredDictElement) -> bool:
        if type(node) is not cst.Arg or node.star == "**":  # ``{**d}``, or ``f(**d)``
            self._note(self.evidence_stack[-1].mappings, node.value)
        return True

    def _assign(self, node: cst.Assign) -> bool:
        for target in node.targets:
            self.bind(target.target)
            self.note_lazy(target.target, node.value)
        if string_value(node.value) == "nccl":  # ``args.dist_backend = "nccl"``, chosen unconditionally
            self.evidence_stack[-1].uses_nccl = True
        if self.depth == 0 and loads_cuda_kernels(node.value, self.definitions.imported_modules):
            self.kernel_modules.update(bound for target in node.targets for bound in bound_names(target.target))
        return True

    def _rebind(self, node: cst.AugAssign | cst.AnnAssign | cst.NamedExpr) -> bool:
        self.bind(node.target)
        return True

    def _as_name(self, node: cst.WithItem | cst.ExceptHandler) -> bool:
        """``with ... as x`` / ``except E as x``: noted, not a loop's rebinding (the flow skips them)."""
        target = node.asname if isinstance(node, cst.WithItem) else node.name
        for name in bound_names(target.name) if target is not None else ():
            self.bindings.note(name, node)
        return True

    def _own_names(self, node: cst.CompFor | cst.Lambda) -> bool:
        """A comprehension's or a lambda's own names: what is called on them says nothing of the scope's."""
        targets = [node.target] if isinstance(node, cst.CompFor) else [param.name for param in all_params(node.params)]
        self.evidence_stack[-1].shadowed.update(name for target in targets for name in bound_names(target))
        return True

    def _yield(self, node: cst.Yield) -> bool:
        self.evidence_stack[-1].generator = True
        return True

    def _if(self, node: cst.If) -> bool:
        self.lazy_if(node)
        return False

    def _loop(self, node: cst.For | cst.While) -> bool:
        self.loop(node)
        return False

    def lazy_if(self, node: cst.If) -> None:
        """``if self.x is None: self.x = ...``: remember ``x`` while visiting the body."""
        if self.depth == 0 and tests_main(node.test):
            self.definitions.is_script = True
        self.visit(node.test)
        methods = self.class_methods[-1] if self.class_methods else {}
        self.lazy_stack.append(lazily_set(node.test, node.body, self.self_names[-1], methods))
        try:
            self.visit(node.body)
        finally:
            self.lazy_stack.pop()
        if node.orelse is not None:
            self.visit(node.orelse)

    def note_lazy(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        name = dotted_name(target.value if type(target) is cst.Subscript else target)  # ``self.cache[key]``
        if name is None or "." not in name or not self.lazy_stack:
            return
        root, _, attribute = name.partition(".")
        if root == self.self_names[-1] and any(
            attribute in tested or tested is EVERY_ATTRIBUTE for tested in self.lazy_stack
        ):
            pending: list[cst.CSTNode] = [value]  # every call in it: ``nn.Sequential(nn.Linear(...)).to(d)``
            while pending:
                node = pending.pop()
                if type(node) is cst.Call:
                    self.definitions.lazy_values.add(id(node))
                pending.extend(children(node))

    def _runs_once(self, node: cst.Call) -> bool:
        """A call made where the code builds something once (lazy initialisation): it does not run
        at every call of the method around it (it may run after the module moved, though)."""
        return id(node) in self.definitions.lazy_values or any(tested is EVERY_ATTRIBUTE for tested in self.lazy_stack)

    def loop(self, node: cst.For | cst.While) -> None:
        rebound: set[str] = set()
        self.loop_stack.append(rebound)
        try:
            if type(node) is cst.For:
                self.bind(node.target)
                self.definitions.note_rewritten(id(node), every_element_stores(node))
            for child in children(node):
                self.visit(child)
        finally:
            self.loop_stack.pop()
        self.definitions.loop_targets[id(node)] = frozenset(rebound)
        if self.loop_stack:
            self.loop_stack[-1].update(rebound)

    def bind(self, target: cst.CSTNode) -> None:
        if type(target) is cst.Tuple or type(target) is cst.List:  # ``self.x, self.y = ...`` too
            for element in target.elements:
                self.bind(element.value)  # a starred element's value is what it binds
            return
        names = set(bound_names(target)) if type(target) is not cst.Attribute else set()
        for name in names:
            self.bindings.note(name, target)
        dotted = dotted_name(target) if type(target) is cst.Attribute else None
        if dotted is not None:
            names.add(dotted)
            attribute = own_attribute(dotted, self.self_names[-1])
            if attribute is not None:
                self.evidence_stack[-1].self_assigned.add(attribute)
        for rebound in self.loop_stack:
            rebound.update(names)

    def function(self, node: cst.FunctionDef, owner: ClassInfo | None) -> None:
        for decorator in node.decorators:
            self.visit(decorator)
        for param in all_params(node.params):
            if param.default is not None:
                self.visit(param.default)
        if any(defaults_to_nccl(param) for param in all_params(node.params)):
            self.definitions.backend_defaults_to_nccl = True
        info = FunctionInfo(node, owner.key if owner is not None else None, Evidence(), self.bindings.key(node))
        self.definitions.functions[id(node)] = info
        self.bindings.enter_function(info)
        if owner is not None:
            owner.methods[info.name] = info
        elif self.depth == 0:
            self.definitions.top_functions[info.name] = info
            if info.name.startswith("test_"):
                self.definitions.is_test_module = True
        self.depth += 1
        try:
            self.scope(_body(node), info.evidence, info.self_name)
        finally:
            self.depth -= 1
            self.bindings.exit_function()
        # A device named inside a nested function was chosen by the enclosing one too.
        for outer in self.evidence_stack:
            outer.placements |= info.evidence.placements

    def klass(self, node: cst.ClassDef) -> None:
        for child in (*node.decorators, *node.bases):
            self.visit(child)
        info = ClassInfo(node, self.bindings.key(node))
        self.definitions.classes_by_key[info.key] = info
        self.bindings.enter_class(info)
        if self.depth == 0:
            self.definitions.classes[info.name] = info
            if any(base.endswith("TestCase") for base in info.base_names()):
                self.definitions.is_test_module = True
        self.depth += 1
        body = _body(node)
        self.class_methods.append({item.name.value: item for item in body if type(item) is cst.FunctionDef})
        try:
            for statement in body:
                if type(statement) is cst.FunctionDef:
                    self.function(statement, info)
                else:
                    self.visit(statement)
        finally:
            self.depth -= 1
            self.class_methods.pop()
            self.bindings.exit_class()

    def call(self, node: cst.Call) -> None:
        func = node.func
        evidence = self.evidence_stack[-1]
        name = dotted_name(func)
        if name is None or name.rsplit(".", 1)[-1] not in _DEVICE_TYPE_CALLS:
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in ("device", "map_location"):
                    self._placement(arg.value)
                elif arg.keyword is not None and arg.keyword.value == "device_ids":  # ``[0, 1]``: two GPUs
                    listed = isinstance(arg.value, (cst.List, cst.Tuple)) and len(arg.value.elements) > 1
                    evidence.written_for_gpus = evidence.written_for_gpus or listed
        if name is not None:
            last = name.rsplit(".", 1)[-1]
            if last == "init_process_group":
                self.definitions.sets_up_a_process_group = True
                evidence.uses_nccl = evidence.uses_nccl or names_nccl(node, evidence.bound)
            evidence.written_for_gpus = evidence.written_for_gpus or self._written_for_gpus(name)
            if last == "spawn" and node.args and type(node.args[0].value) is cst.Name and spawns_one_per_gpu(node):
                self.definitions.gpu_workers.add(node.args[0].value.value)
            self.definitions.call_sites[last].append(node)
            if last in _TYPE_CHECKS and node.args:
                self._note(evidence.type_checked, node.args[0].value)
            if last in _MODULE_ARGUMENT_CALLS and node.args:
                self._note(evidence.module_arguments, node.args[0].value)
            if last == "Engine":
                self._note_batch_handler(node)
            if last in _IMPORTS_BY_NAME and node.args and (imported := string_value(node.args[0].value)) is not None:
                self.definitions.imported_modules.add(imported)
        if type(func) is not cst.Attribute:
            return
        method = func.attr.value
        receiver = dotted_name(func.value)
        if receiver is not None:
            evidence.methods[receiver].add(method)
            if not fits_tensor_move(node, method) or not fits_module_method(node, method):
                evidence.misfits.add(receiver)  # another class's ``cuda(q, meta=m)``, ``train(dataset=d)``
            if "nccl" in receiver.lower():  # ``self._nccl_group.broadcast(...)``: NCCL is CUDA-only
                evidence.uses_nccl = True
            evidence.runs_collective = evidence.runs_collective or is_collective(node)
            if receiver == self.self_names[-1]:
                evidence.self_called.add(method)
                if not self._runs_once(node):
                    evidence.self_called_each_time.add(method)
                if (registered := registered_attribute(node, method)) is not None:
                    evidence.self_assigned.add(registered)
            elif method in ("to", "cuda", "cpu") and (moved := own_attribute(receiver, self.self_names[-1])):
                evidence.self_assigned.add(moved)  # ``self.model.cuda()``: a module moves in place
        if method in _TENSOR_ARGUMENT_METHODS and node.args:
            self._note(evidence.tensor_arguments, node.args[0].value)
        if method in ("to", "cuda") and node.args:
            self._placement(node.args[0].value)

    def attribute(self, node: cst.Attribute) -> None:
        """``x.device`` read somewhere: ``x`` has a device, so it is a tensor or a module."""
        if node.attr.value == "device":
            receiver = dotted_name(node.value)
            if receiver is not None:
                self.evidence_stack[-1].methods[receiver].add("device")

    def _placement(self, device: cst.BaseExpression) -> None:
        name = dotted_name(device)
        if name is not None:
            for evidence in self.evidence_stack:
                evidence.placements.add(name)
        elif type(device) is cst.Call and device.args:  # ``torch.device(name)``
            self._placement(device.args[0].value)

    @staticmethod
    def _note(names: set[str], node: cst.BaseExpression) -> None:
        if (name := dotted_name(node)) is not None:
            names.add(name)


# Names and literals: nothing to note, nothing inside (a third of the nodes visited).
_LEAVES = frozenset({cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis})

# Each handler takes the node type it is filed under.
_HANDLERS: dict[type[cst.CSTNode], Callable[[_Collector, Any], bool]] = {
    cst.FunctionDef: _Collector._function,
    cst.ClassDef: _Collector._class,
    cst.Call: _Collector._call,
    cst.Import: _Collector._import,
    cst.ImportFrom: _Collector._import,
    cst.Attribute: _Collector._attribute,
    cst.Comparison: _Collector._comparison,
    cst.Subscript: _Collector._subscript,
    cst.Arg: _Collector._unpacked,
    cst.StarredDictElement: _Collector._unpacked,
    cst.Assign: _Collector._assign,
    cst.AugAssign: _Collector._rebind,
    cst.AnnAssign: _Collector._rebind,
    cst.NamedExpr: _Collector._rebind,
    cst.WithItem: _Collector._as_name,
    cst.ExceptHandler: _Collector._as_name,
    cst.Yield: _Collector._yield,
    cst.CompFor: _Collector._own_names,
    cst.Lambda: _Collector._own_names,
    cst.If: _Collector._if,
    cst.For: _Collector._loop,
    cst.While: _Collector._loop,
}


def _body(node: cst.FunctionDef | cst.ClassDef) -> Sequence[cst.CSTNode]:
    body = node.body
    return body.body if type(body) is cst.IndentedBlock else [body]
