"""What a scope shows about its names, wherever in the scope it shows it: the evidence a careful
reader uses to tell what a name is (``x.size(0)`` shows a tensor, ``m.eval()`` a module), found by
the collector's one syntactic pass, flow-insensitive."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import libcst as cst

from ..knowledge import api
from .domain import Kind


@dataclass
class Evidence:
    """What a scope shows about its names, wherever in the scope it shows it."""

    methods: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    tensor_arguments: set[str] = field(default_factory=set)
    module_arguments: set[str] = field(default_factory=set)
    # Names used as a device: ``.to(name)``, ``device=name``, ``torch.device(name)``...
    placements: set[str] = field(default_factory=set)
    # Names unpacked with ``**name``: mappings (a ``BatchEncoding``), not tensors.
    mappings: set[str] = field(default_factory=set)
    # Names indexed along several axes (``x[idx, :]``): arrays, tensors or NumPy's.
    indexed_by_axes: set[str] = field(default_factory=set)
    # Names whose type the scope checks (``isinstance(x, ...)``): they may be several things.
    type_checked: set[str] = field(default_factory=set)
    # Names on which the scope calls a tensor's move method with arguments a tensor's does not
    # take (``quantizer.cuda(q, meta=m)``): another class's object, whatever else it is called.
    misfits: set[str] = field(default_factory=set)
    # Names a comprehension or a lambda binds for itself (``[x.strip() for x in labels]``).
    shadowed: set[str] = field(default_factory=set)
    # Attributes assigned on the first parameter (``self.x = ...``) and methods called on it.
    self_assigned: set[str] = field(default_factory=set)
    self_called: set[str] = field(default_factory=set)
    # ... of those, the ones called outside a block that runs once (lazy initialisation).
    self_called_each_time: set[str] = field(default_factory=set)
    # The scope yields: a generator function.
    generator: bool = False
    # The scope sets up NCCL (``init_process_group(backend="nccl")``), which needs CUDA GPUs.
    uses_nccl: bool = False
    # The scope runs a collective (``dist.broadcast(t, 0)``): it runs in a multi-process job.
    runs_collective: bool = False
    # The scope is written for GPUs by design: it hands a module to several GPUs by index
    # (``DataParallel(m, device_ids=[0, 1])``, a two-GPU test of synchronised batch norm), or it
    # captures CUDA graphs (``torch.cuda.make_graphed_callables``), which exist on CUDA alone, or it
    # runs compiled CUDA kernels (``ext_module.three_nn_forward`` of ``ext_loader.load_ext``).
    written_for_gpus: bool = False
    # Names the scope binds (parameters, assignments, ``for`` and ``with`` targets, imports,
    # ``def`` and ``class``), each with its first binding: what a name inserted here may refer to.
    bound: dict[str, cst.CSTNode] = field(default_factory=dict)

    def kind_of(self, name: str) -> Kind | None:
        """What the scope's use of ``name`` shows it is, if anything does."""
        if name in self.type_checked or name in self.misfits:  # several things, or not a tensor
            return None
        if name in self.mappings:
            return Kind.MAPPING
        methods = self.methods.get(name, ())
        if name in self.tensor_arguments or any(api.proves_tensor(method) for method in methods):
            return Kind.TENSOR
        if name in self.module_arguments or any(method in api.MODULE_ONLY_METHODS for method in methods):
            return Kind.MODULE
        if name in self.indexed_by_axes or any(api.proves_array(method) for method in methods):
            return Kind.ARRAYLIKE
        return None

    def calls_what_no_tensor_has(self, name: str) -> bool:
        """Does the scope call on ``name`` a public method no tensor has (``graph.sym_norm()``)? Then
        it is some other object, whatever a convention says its kind should be. Private ones
        (``adj._values()``) are left out: tensors have many the stubs do not list."""
        if name in self.shadowed:  # the methods seen may be those of another value of that name
            return False
        methods = self.methods.get(name, ())
        return any(not method.startswith("_") and not api.is_tensor_attribute(method) for method in methods)
