"""Generate what the linter knows about PyTorch's API, from the installed torch's own stubs.

Writes ``src/flake8_torchdevice/knowledge/torch_generated.py``: frozensets of
names (tensor methods by what they return, torch functions that take ``device=``,
nn.Module classes that own parameters or buffers...). The linter never imports torch;
this script runs at development time, with the pinned torch installed.

    python scripts/generate_torch_knowledge.py          # write the module
    python scripts/generate_torch_knowledge.py --check  # exit 1 if the committed module is stale

Where the facts come from:

* Stubs, read with ``ast`` (torch's Python modules are not imported for these):
  ``torch/_C/__init__.pyi`` (class TensorBase), ``torch/_tensor.py`` (class Tensor),
  ``torch/_C/_VariableFunctions.pyi`` and the imports of ``torch/__init__.py``
  (``torch.*``), ``torch/functional.py``, ``torch/nn/functional.pyi`` and
  ``torch/_C/_nn.pyi``, ``torch/return_types.pyi`` (named tuples), and the
  ``_add_docstr`` signatures of ``torch/linalg``, ``torch/fft``, ``torch/special``
  (these have no stubs: their docstrings' first line, ``fft(input, ...) -> Tensor``,
  is parsed instead).
* Introspection, for what stubs cannot say: which nn.Module subclasses ``torch.nn``
  exports and whether each owns parameters or buffers (from the source of their
  ``__init__``), and the public attribute names of ``numpy.ndarray`` and ``nn.Module``.
* The hand-written overrides below (``OVERRIDES`` section), each with its reason. They
  are emitted as data; the generated module holds no hand-written facts.

Every run also checks itself against torch at run time (``self_check``): a sample of
nn classes is instantiated and its parameters and buffers counted; every entry of the
integer-or-bool lists is called on a tensor that requires grad; every public name of
torch.Tensor must be a method or a property here, and the right one; functions marked
removed must raise. An override the stubs make needless, or one that names nothing, is
an error too. A failed check exits 2 and writes nothing.

``--report`` prints what no return set holds and why each nn class was classified.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib
import importlib.util
import inspect
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "src" / "flake8_torchdevice" / "knowledge" / "torch_generated.py"
COMMAND = "python scripts/generate_torch_knowledge.py"
WIDTH = 120

# What a callable returns. A name can have several (overloads differ), or none that
# is known (no annotation, ``Any``): then it is in none of the return sets.
TENSOR, TENSORS, OTHER, UNKNOWN = "tensor", "tensors", "other", "unknown"

# ======================================================================================
# OVERRIDES: facts the stubs cannot give. Everything hand-written lives here.
# ======================================================================================

# Return kinds for public callables whose source has no usable annotation, no stub of
# the same name to fall back on, or an annotation that is wrong or too loose.
# Key: "Tensor.<method>" or the qualified function name. REMOVED: the callable only
# raises (a function removed from torch); it stays a name of its namespace and is in
# no return set.
REMOVED = "removed"
RETURN_OVERRIDES: dict[str, tuple[str, ...]] = {
    # torch/_tensor.py methods without annotation, without a TensorBase stub, and without a
    # torch.<name> function to follow (x.lu() follows torch.lu, x.unique() torch.unique...).
    "Tensor.backward": (OTHER,),  # None
    "Tensor.register_hook": (OTHER,),  # a RemovableHandle
    "Tensor.register_post_accumulate_grad_hook": (OTHER,),  # a RemovableHandle
    "Tensor.is_shared": (OTHER,),  # bool
    "Tensor.share_memory_": (TENSOR,),  # returns self
    "Tensor.storage": (OTHER,),  # a TypedStorage
    "Tensor.module_load": (TENSOR,),  # the tensor to load into a module's parameter
    "Tensor.resize": (TENSOR,),  # deprecated; a resized copy
    "Tensor.resize_as": (TENSOR,),  # deprecated; a resized copy
    "Tensor.dim_order": (OTHER,),  # a tuple of ints (or a bool with ambiguity_check)
    "Tensor.to_sparse_coo": (TENSOR,),
    "Tensor.index": (TENSOR,),  # first-class dimensions (functorch.dim): binds positions to Dim objects
    # Removed: it raises (x.solve, x.eig... follow torch.solve, torch.eig below).
    "Tensor.reinforce": (REMOVED,),
    # torch/functional.py: built by boolean_dispatch, which no annotation describes.
    "torch.unique": (TENSOR, TENSORS),  # a tensor, or with return_inverse/return_counts a tuple
    "torch.unique_consecutive": (TENSOR, TENSORS),
    "torch.lu": (TENSORS,),  # (A_LU, pivots) or (A_LU, pivots, infos)
    # torch/functional.py wrappers without annotation over _VF ops that have no stub either.
    "torch.atleast_1d": (TENSOR, TENSORS),  # one tensor in, one out; several in, a tuple out
    "torch.atleast_2d": (TENSOR, TENSORS),
    "torch.atleast_3d": (TENSOR, TENSORS),
    "torch.block_diag": (TENSOR,),
    "torch.broadcast_tensors": (TENSORS,),  # a tuple of views
    "torch.broadcast_shapes": (OTHER,),  # a torch.Size
    "torch.chain_matmul": (TENSOR,),
    "torch.tensordot": (TENSOR,),  # untyped overloads
    # Other modules' functions torch/__init__.py imports, without annotation.
    "torch.set_printoptions": (OTHER,),  # None
    "torch.to_dlpack": (OTHER,),  # a PyCapsule
    # torch.linalg / torch.special: a docstring signature without "-> ...".
    "torch.linalg.multi_dot": (TENSOR,),
    "torch.special.logsumexp": (TENSOR,),  # "Alias for torch.logsumexp"
    # torch._linalg_utils: removed functions that raise.
    "torch.eig": (REMOVED,),
    "torch.lstsq": (REMOVED,),
    "torch.solve": (REMOVED,),
    "torch.symeig": (REMOVED,),
    "torch.matrix_rank": (REMOVED,),
}

# torch.* factories that copy or wrap host data (a list, an ndarray, a buffer): the result
# is on the CPU unless ``device=`` says otherwise. Derived from a first parameter named
# ``data`` that is not a Tensor (tensor, as_tensor); these name their parameter otherwise.
DATA_FACTORY_OVERRIDES: frozenset[str] = frozenset(
    {
        "asarray",  # asarray(obj, ...)
        "from_numpy",  # from_numpy(ndarray): shares the ndarray's memory
        "frombuffer",  # frombuffer(buffer, ...): shares a Python buffer's memory
    }
)
# Not data factories on purpose: from_dlpack (keeps the producer's device, which need not
# be the CPU), from_file (maps a file; rare, and it takes device= like any factory).

# Results that can never require grad: integer or bool tensors (or tuples of them).
# Stubs type them all as Tensor; each entry is called at generation time on a tensor
# that requires grad (``INTEGER_OR_BOOL_PROBES``) and its result must be integer or bool.
# Left out on purpose, although they look alike:
#   sign, sgn, floor, ceil, round, trunc, frac: float results, differentiable (zero grad).
#   floor_divide, remainder, fmod: float stays float and requires grad.
#   unique, unique_consecutive: the values keep the input's dtype and grad.
#   bincount: integer counts, but float (and differentiable) with float weights.
#   histc: float; it does not require grad (no derivative), but it is not integer.
#   randint_like: random integers in the dtype of its input, float for a float input.
#   max/min/sort/topk/kthvalue/mode/median with dim: (values, indices), values carry grad.
#   where(condition) with one argument: long indices, but where(c, x, y) is differentiable.
#   equal, is_nonzero, is_same_size: Python bools, already in the "other" sets.
INTEGER_OR_BOOL_RESULT_METHODS: frozenset[str] = frozenset(
    (
        # comparisons -> bool
        "eq ne lt le gt ge greater greater_equal less less_equal not_equal isclose "
        # predicates -> bool
        "isnan isinf isfinite isposinf isneginf isreal signbit "
        "logical_and logical_or logical_xor logical_not "
        # bitwise ops exist for integer and bool tensors only
        "bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift "
        # indices and counts -> int64
        "argmax argmin argsort argwhere nonzero nonzero_static count_nonzero "
        "multinomial "  # sampled indices, int64
        # conversions to integer or bool dtypes
        "long int short char byte bool "
        # operators: comparisons give bool; &, |, ^, ~, <<, >> accept integer/bool tensors only
        "__eq__ __ne__ __lt__ __le__ __gt__ __ge__ __and__ __or__ __xor__ __invert__ "
        "__rand__ __ror__ __rxor__ __lshift__ __rshift__"
    ).split()
)
INTEGER_OR_BOOL_RESULT_FUNCTIONS: frozenset[str] = frozenset(
    [
        *(
            f"torch.{name}"
            for name in (
                "eq ne lt le gt ge greater greater_equal less less_equal not_equal isclose "
                "isnan isinf isfinite isposinf isneginf isreal signbit isin "
                "logical_and logical_or logical_xor logical_not "
                "bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift "
                "argmax argmin argsort argwhere nonzero nonzero_static count_nonzero multinomial "
                "bucketize searchsorted "  # insertion indices, int64 (int32 with out_int32=True)
                "unravel_index "  # a tuple of int64 tensors
                "randint randperm "  # random integers (int64 unless dtype= says otherwise)
                "tril_indices triu_indices"  # int64 index pairs
            ).split()
        ),
        "torch.nn.functional.one_hot",  # int64
    ]
)

# torch.Tensor attributes that exist at run time but not in the stubs (the self-check fails
# on any other such name, and on an entry here the stubs have come to give).
TENSOR_METHODS_MISSING_FROM_STUBS: dict[str, tuple[str, ...]] = {
    "cdouble": (TENSOR,),  # x.to(torch.cdouble)
    "cfloat": (TENSOR,),  # x.to(torch.cfloat)
    "const_data_ptr": (OTHER,),  # an int
    "ipu": (TENSOR,),  # a copy on an IPU, like cuda()
    "mtia": (TENSOR,),  # a copy on an MTIA device, like cuda()
}
TENSOR_PROPERTIES_MISSING_FROM_STUBS: dict[str, tuple[str, ...]] = {
    "is_xla": (OTHER,),  # bool
    "name": (OTHER,),  # the tensor's name (named tensors / JIT), a str or None
    "volatile": (OTHER,),  # deprecated, always False
}

# TENSOR_ONLY_METHODS is evidence that a receiver is a tensor: a tensor method that none of
# these objects has. Their attribute names are read at generation time (``dir``):
#   numpy.ndarray and torch.nn.Module (also emitted, as NDARRAY_ATTRIBUTES and MODULE_ATTRIBUTES);
#   the builtins below;
#   the other torch objects user code holds (NON_TENSOR_TORCH_TYPES: storages, torch.Size,
#   dtype, device, Generator, PackedSequence, autograd graph nodes, distributions, optimizers).
# and COMMON_NON_TENSOR_NAMES, by hand: names other common objects have.
BUILTIN_TYPES: tuple[type, ...] = (
    list, dict, tuple, str, set, frozenset, bytes, int, float, complex, slice, range
)  # fmt: skip
NON_TENSOR_TORCH_TYPES: tuple[str, ...] = (
    "torch.UntypedStorage",
    "torch.TypedStorage",
    "torch.Size",
    "torch.dtype",
    "torch.device",
    "torch.Generator",
    "torch.nn.utils.rnn.PackedSequence",
    "torch.autograd.graph.Node",
    "torch.distributions.Distribution",
    "torch.optim.Optimizer",
)
COMMON_NON_TENSOR_NAMES: frozenset[str] = frozenset(
    (
        # conversions and queries many array-likes and models have (TF/JAX/cupy arrays, pint, batches)
        "to cuda cpu float half double long int short char byte bool type numpy tolist item "
        "size dim numel new get_device apply pin_memory "
        # pandas DataFrame/Series methods (arithmetic, comparisons, statistics), and SparseArray.to_dense
        "add sub mul div divide multiply subtract true_divide floor_divide pow abs eq ne lt le gt ge "
        "all any count cummax cummin cumprod cumsum diff corr cov kurtosis median mode quantile rank "
        "nunique unique sample where mask isin isnull notnull isna notna clip round expanding "
        "rolling pipe agg aggregate transform rename align equal equals to_dense "
        # scipy.sparse matrices' elementwise methods
        "arcsin arcsinh arctan arctanh deg2rad rad2deg expm1 log1p sinh tanh trunc maximum minimum "
        "count_nonzero "
        # math-like names of sympy matrices and expressions, decimal.Decimal, loggers (log)
        "exp log log2 log10 sqrt sin cos tan floor ceil sign norm inverse det cross adjoint solve "
        # xarray / dask arrays
        "roll chunk "
        # numpy random generators (rng.multinomial), queues (q.put), matplotlib (ax.scatter),
        # accelerate / Lightning Fabric (accelerator.gather(x), accelerator.backward(loss))
        "multinomial put scatter gather backward "
        # generic verbs and nouns: ``obj.fix()``, ``obj.t("key")`` (i18n), ``obj.storage()``...
        "fix t storage update set_ map index select split expand register_hook record_stream"
    ).split()
)

# nn classes whose __init__ the source heuristic cannot judge.
NN_STATE_OVERRIDES: dict[str, str] = {
    # It wraps the module it is given (``self.module = module``): its state is that module's.
    "DataParallel": "container",
    # They hold clones (``_get_clones``) of the layer they are given, and the layers torch.nn
    # offers for them (TransformerEncoderLayer, TransformerDecoderLayer) always have state.
    "TransformerEncoder": "state",
    "TransformerDecoder": "state",
}

# nn classes instantiated by the self-check, with typical arguments: (args, kwargs).
# Classes that construct with no argument are all instantiated besides these.
NN_SAMPLE_ARGS: dict[str, tuple[tuple, dict]] = {
    "Linear": ((4, 3), {}),
    "Bilinear": ((4, 4, 3), {}),
    "LazyLinear": ((3,), {}),
    "Conv1d": ((3, 8, 3), {}),
    "Conv2d": ((3, 8, 3), {}),
    "Conv3d": ((3, 8, 3), {}),
    "ConvTranspose2d": ((3, 8, 3), {}),
    "LazyConv2d": ((8, 3), {}),
    "BatchNorm1d": ((4,), {}),
    "BatchNorm2d": ((4,), {}),
    "BatchNorm3d": ((4,), {}),
    "SyncBatchNorm": ((4,), {}),
    "LazyBatchNorm2d": ((), {}),
    "InstanceNorm2d": ((4,), {}),
    "LayerNorm": ((4,), {}),
    "GroupNorm": ((2, 4), {}),
    "RMSNorm": ((4,), {}),
    "LocalResponseNorm": ((2,), {}),
    "Embedding": ((10, 4), {}),
    "EmbeddingBag": ((10, 4), {}),
    "RNN": ((4, 8), {}),
    "LSTM": ((4, 8), {}),
    "GRU": ((4, 8), {}),
    "LSTMCell": ((4, 8), {}),
    "MultiheadAttention": ((8, 2), {}),
    "TransformerEncoderLayer": ((8, 2), {"dim_feedforward": 16}),
    "TransformerDecoderLayer": ((8, 2), {"dim_feedforward": 16}),
    "Transformer": ((), {"d_model": 8, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1}),
    "AdaptiveLogSoftmaxWithLoss": ((8, 20, [10]), {}),
    "MaxPool2d": ((2,), {}),
    "AvgPool2d": ((2,), {}),
    "AdaptiveAvgPool2d": ((1,), {}),
    "Upsample": ((), {"scale_factor": 2}),
    "PixelShuffle": ((2,), {}),
    "Unflatten": ((1, (2, 2)), {}),
    "ConstantPad2d": ((1, 0.0), {}),
    "Fold": ((4, 2), {}),
    "Unfold": ((2,), {}),
    "Threshold": ((0.1, 0.0), {}),
    "Softmax": ((), {"dim": -1}),
    "CrossEntropyLoss": ((), {}),
    "NLLLoss": ((), {}),
    "BCEWithLogitsLoss": ((), {}),
    "ChannelShuffle": ((2,), {}),
}


def _build_transformer_stack(nn, name: str):
    """A TransformerEncoder/Decoder around one small layer (their argument is a module)."""
    if name == "TransformerEncoder":
        return nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), 2)
    return nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, dim_feedforward=16), 2)


_USED_OVERRIDES: set[str] = set()


def overridden(key: str, derived: frozenset[str], problems: list[str]) -> frozenset[str]:
    """``derived``, or the return kinds RETURN_OVERRIDES gives for ``key``. An override that
    says what the stubs say is reported, and so is one never asked for (``build``)."""
    if key not in RETURN_OVERRIDES:
        return derived
    _USED_OVERRIDES.add(key)
    override = frozenset(RETURN_OVERRIDES[key])
    if override == derived:
        problems.append(f"RETURN_OVERRIDES[{key!r}] says what the stubs say: drop it")
    return override


# ======================================================================================
# Reading stubs
# ======================================================================================


def torch_root() -> Path:
    """The installed torch package's folder, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("torch is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def module_path(root: Path, module: str) -> Path | None:
    """The stub (preferred) or source of ``torch.x.y`` under ``root``."""
    parts = module.split(".")
    if parts[0] != "torch":
        return None
    base = root.joinpath(*parts[1:])
    for candidate in (
        base.with_suffix(".pyi"),
        base.with_suffix(".py"),
        base / "__init__.pyi",
        base / "__init__.py",
    ):
        if candidate.is_file():
            return candidate
    return None


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path), type_comments=True)


@dataclass(frozen=True)
class Signature:
    """One overload: its parameter names and annotations (``self`` dropped) and what it returns."""

    params: tuple[str, ...]
    annotations: tuple[str, ...]
    kinds: frozenset[str]


def _kinds(sigs: list[Signature]) -> frozenset[str]:
    """What any of the overloads returns."""
    return frozenset().union(*(sig.kinds for sig in sigs))


def _annotation_text(node: ast.expr | None) -> str:
    return ast.unparse(node) if node is not None else ""


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


TYPING_FACTORIES = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple", "NewType", "TypeAliasType"})
TENSOR_NAMES = frozenset({"Tensor", "TensorBase", "Self", "Parameter"})
SEQUENCE_NAMES = frozenset({"tuple", "Tuple", "list", "List", "Sequence"})
UNKNOWN_NAMES = frozenset({"Any", "_Any", "object"})


class ReturnTypes:
    """``torch/return_types.pyi``: named tuples, by name, as the tuple type they subclass."""

    def __init__(self, root: Path) -> None:
        self.bases: dict[str, ast.expr] = {}
        path = root / "return_types.pyi"
        if path.is_file():
            for node in parse(path).body:
                if isinstance(node, ast.ClassDef) and node.bases:
                    self.bases[node.name] = node.bases[0]


def return_kinds(node: ast.expr | None, typevars: dict[str, str], named: ReturnTypes) -> set[str]:
    """What an annotation says a callable returns: some of TENSOR, TENSORS, OTHER, UNKNOWN.

    ``Tensor | None`` is a tensor (the None is no other value worth a set); a tuple, list or
    Sequence is TENSORS when all its items are tensors, else OTHER; ``Any`` is UNKNOWN.
    """
    if node is None:
        return {UNKNOWN}
    if isinstance(node, ast.Constant):
        if node.value is None:
            return {"none"}
        if isinstance(node.value, str):
            try:
                return return_kinds(ast.parse(node.value, mode="eval").body, typevars, named)
            except SyntaxError:
                return {UNKNOWN}
        return {OTHER}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(return_kinds(node.left, typevars, named) | return_kinds(node.right, typevars, named))
    if isinstance(node, ast.Subscript):
        base = _last_name(node.value)
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base in ("Optional", "Union"):
            return _union(set().union(*(return_kinds(item, typevars, named) for item in items)))
        if base in SEQUENCE_NAMES:
            items = [item for item in items if not (isinstance(item, ast.Constant) and item.value is Ellipsis)]
            if items and all(return_kinds(item, typevars, named) <= {TENSOR, TENSORS} for item in items):
                return {TENSORS}
            return {OTHER}
        return {OTHER}  # Callable[...], TypeIs[...], dict[...], Literal[...]
    dotted = _dotted(node)
    if dotted is None:
        return {UNKNOWN}
    name = dotted.rsplit(".", 1)[-1]
    if dotted.startswith(("torch.return_types.", "return_types.")) and name in named.bases:
        return return_kinds(named.bases[name], typevars, named)
    if name in TENSOR_NAMES:
        return {TENSOR}
    if name in typevars:
        return {typevars[name]}
    if name in UNKNOWN_NAMES:
        return {UNKNOWN}
    return {OTHER}


def _union(kinds: set[str]) -> set[str]:
    """A union's kinds: None beside a tensor is dropped; elsewhere None is an other value."""
    if kinds & {TENSOR, TENSORS}:
        kinds.discard("none")
    elif "none" in kinds:
        kinds = (kinds - {"none"}) | {OTHER}
    return kinds


def finish(kinds: set[str]) -> frozenset[str]:
    return frozenset(OTHER if kind == "none" else kind for kind in kinds)


def _typevars(tree: ast.Module) -> dict[str, str]:
    """TypeVars bound to a tensor (``S = TypeVar("S", bound="Tensor")``) return a tensor."""
    found: dict[str, str] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and _last_name(node.value.func) == "TypeVar"
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            bound = next((kw.value for kw in node.value.keywords if kw.arg == "bound"), None)
            kinds = return_kinds(bound, {}, ReturnTypes(Path("/nonexistent")))
            found[node.targets[0].id] = TENSOR if kinds == {TENSOR} else UNKNOWN
    return found


def _type_comment_return(text: str | None) -> ast.expr | None:
    """The return type of a ``# type: (Tensor, int) -> Tensor`` comment."""
    if not text or "->" not in text:
        return None
    try:
        return ast.parse(text.split("->", 1)[1].strip(), mode="eval").body
    except SyntaxError:
        return None


def signature_of(
    node: ast.FunctionDef | ast.AsyncFunctionDef, typevars: dict[str, str], named: ReturnTypes, method: bool
) -> Signature:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    if method and positional:
        positional = positional[1:]
    params = [*positional, *([args.vararg] if args.vararg else []), *args.kwonlyargs]
    returns = node.returns if node.returns is not None else _type_comment_return(node.type_comment)
    return Signature(
        params=tuple(param.arg for param in params),
        annotations=tuple(_annotation_text(param.annotation) for param in params),
        kinds=finish(return_kinds(returns, typevars, named)),
    )


def _decorators(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {_last_name(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list}


def _is_type_checking(test: ast.expr) -> bool:
    return _last_name(test) == "TYPE_CHECKING"


def module_statements(body: Sequence[ast.stmt], fallback: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """A module's statements in order, through ``if``/``try``, never into functions or classes.

    Each comes with whether it is a *fallback*: in the ``else`` of ``if TYPE_CHECKING``. What
    the type checker's side binds wins; the run-time side only binds names that side leaves
    alone (torch/functional.py keeps ``norm``'s typed overloads there, behind ``pass``).
    """
    for node in body:
        if isinstance(node, ast.If):
            yield from module_statements(node.body, fallback)
            yield from module_statements(node.orelse, fallback or _is_type_checking(node.test))
        elif isinstance(node, ast.Try):
            for part in (node.body, *(handler.body for handler in node.handlers), node.orelse, node.finalbody):
                yield from module_statements(part, fallback)
        else:
            yield node, fallback


# An entry of a namespace: a function (its overloads), a reference to another module's
# name, a module, a class, or some other value.
@dataclass
class Ref:
    module: str
    name: str


@dataclass
class Entry:
    kind: str  # "function", "ref", "module", "class", "constant", "value"
    overloads: list[Signature] = field(default_factory=list)
    ref: Ref | None = None
    module: str = ""


class Stubs:
    """The namespaces of torch's modules, read from their stubs or sources, lazily."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.named = ReturnTypes(root)
        self._namespaces: dict[str, dict[str, Entry]] = {}
        self._all: dict[str, list[str] | None] = {}
        self._building: set[str] = set()

    def namespace(self, module: str) -> dict[str, Entry]:
        if module not in self._namespaces:
            if module in self._building:
                return {}
            self._building.add(module)
            try:
                self._namespaces[module] = self._build(module)
            finally:
                self._building.discard(module)
        return self._namespaces[module]

    def exported(self, module: str) -> list[str]:
        """What ``from module import *`` binds: ``__all__`` when given, else the public names."""
        space = self.namespace(module)
        listed = self._all.get(module)
        return listed if listed is not None else [name for name in space if not name.startswith("_")]

    def _absolute(self, module: str, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        path = module_path(self.root, module)
        package = module.split(".")
        if path is None or path.stem != "__init__":
            package = package[:-1]
        package = package[: len(package) - (node.level - 1)]
        return ".".join([*package, *([node.module] if node.module else [])])

    def _build(self, module: str) -> dict[str, Entry]:
        path = module_path(self.root, module)
        if path is None:
            return {}
        tree = parse(path)
        typevars = _typevars(tree)
        space: dict[str, Entry] = {}
        overloaded: set[str] = set()
        listed: list[str] | None = None
        checker_bound: set[str] = set()
        for node, fallback in module_statements(tree.body):
            binds = _bound_names(node)
            if fallback and binds & checker_bound:
                continue
            if not fallback:
                checker_bound |= binds
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                sig = signature_of(node, typevars, self.named, method=False)
                if "overload" in _decorators(node):
                    if node.name not in overloaded or space.get(node.name, Entry("value")).kind != "function":
                        space[node.name] = Entry("function")
                        overloaded.add(node.name)
                    space[node.name].overloads.append(sig)
                elif node.name not in overloaded:  # an implementation after its overloads adds nothing
                    space[node.name] = Entry("function", [sig])
            elif isinstance(node, ast.ClassDef):
                space[node.name] = Entry("class")
                overloaded.discard(node.name)
            elif isinstance(node, ast.ImportFrom):
                source = self._absolute(module, node)
                for alias in node.names:
                    if alias.name == "*":
                        for name in self.exported(source):
                            space[name] = Entry("ref", ref=Ref(source, name))
                    else:
                        bound = alias.asname or alias.name
                        if module_path(self.root, f"{source}.{alias.name}") is not None:
                            space[bound] = Entry("module", module=f"{source}.{alias.name}")
                        else:
                            space[bound] = Entry("ref", ref=Ref(source, alias.name))
                    overloaded.discard(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        space[alias.asname] = Entry("module", module=alias.name)
            elif isinstance(node, ast.Assign):
                names = [target.id for target in node.targets if isinstance(target, ast.Name)]
                if names == ["__all__"]:
                    listed = _string_list(node.value)
                    continue
                entry = self._assigned(space, node.value)
                for name in names:
                    space[name] = entry
                    overloaded.discard(name)
            elif isinstance(node, ast.AugAssign) and _last_name(node.target) == "__all__":
                if listed is not None:
                    extra = _string_list(node.value)
                    listed = listed + extra if extra is not None else None
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                space[node.target.id] = Entry("constant")
            elif isinstance(node, ast.Delete):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        space.pop(target.id, None)
            elif (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and _dotted(node.value.func) in ("__all__.extend", "__all__.append")
                and listed is not None
            ):
                arg = node.value.args[0] if node.value.args else None
                one = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
                extra = [one] if one is not None else _string_list(arg)
                listed = listed + extra if extra is not None else None
        self._all[module] = listed
        return space

    def _assigned(self, space: dict[str, Entry], value: ast.expr) -> Entry:
        """``x = _add_docstr(torch.y, ...)`` or ``x = _VF.y``: a reference; a literal is a constant;
        anything else (``boolean_dispatch(...)``) a value."""
        if isinstance(value, (ast.Constant, ast.Tuple, ast.List, ast.Dict, ast.Set, ast.JoinedStr)):
            return Entry("constant")
        if isinstance(value, ast.Call):
            called = _last_name(value.func)
            known = space.get(called)
            if called in TYPING_FACTORIES or (known is not None and known.kind == "class"):
                return Entry("constant")  # T = TypeVar("T"); classes = _Classes(): not functions
        if isinstance(value, ast.Call) and _last_name(value.func) == "_add_docstr" and value.args:
            value = value.args[0]
        dotted = _dotted(value)
        if dotted is None:
            return Entry("value")
        head, _, rest = dotted.partition(".")
        if not rest:
            known = space.get(head)
            return known if known is not None else Entry("value")
        base = space.get(head)
        module = base.module if base is not None and base.kind == "module" else head if head == "torch" else None
        if module is None and base is not None and base.kind == "ref" and base.ref is not None:
            module = f"{base.ref.module}.{base.ref.name}"
        if module is None:
            return Entry("value")
        *middle, name = rest.split(".")
        return Entry("ref", ref=Ref(".".join([module, *middle]), name))

    def lookup(self, module: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()) -> Entry | None:
        """The function, class... that ``module.name`` is, following references."""
        if (module, name) in seen:
            return None
        entry = self.namespace(module).get(name)
        if entry is None:
            if module_path(self.root, f"{module}.{name}") is not None:
                return Entry("module", module=f"{module}.{name}")
            return None
        if entry.kind == "ref" and entry.ref is not None:
            return self.lookup(entry.ref.module, entry.ref.name, seen | {(module, name)})
        return entry

    def functions(self, module: str, names: Iterable[str] | None = None) -> dict[str, list[Signature]]:
        """The public functions of a module (or the given names), with their overloads.

        A name bound to a value this script cannot follow (``boolean_dispatch(...)``, a C
        function without a stub) is a function whose return is UNKNOWN; names imported from
        outside torch (``math.pi``), classes and modules are left out.
        """
        found: dict[str, list[Signature]] = {}
        unknown = [Signature((), (), frozenset({UNKNOWN}))]
        space = self.namespace(module)
        for name in names if names is not None else list(space):
            raw = space.get(name)
            if name.startswith("_") or raw is None:
                continue
            entry = self.lookup(module, name)
            if entry is not None and entry.kind == "function":
                found[name] = entry.overloads
            elif (entry is None or entry.kind == "value") and self._final_module(module, name).startswith("torch"):
                found[name] = unknown  # x = boolean_dispatch(...), or a C function without a stub
        return found

    def _final_module(self, module: str, name: str) -> str:
        """The module the chain of references from ``module.name`` ends in."""
        seen = set()
        while (module, name) not in seen:
            seen.add((module, name))
            entry = self.namespace(module).get(name)
            if entry is None or entry.kind != "ref" or entry.ref is None:
                return module
            module, name = entry.ref.module, entry.ref.name
        return module


def _bound_names(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {target.id for target in node.targets if isinstance(target, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    if isinstance(node, ast.ImportFrom):
        return {alias.asname or alias.name for alias in node.names if alias.name != "*"}
    return set()


def _string_list(node: ast.expr | None) -> list[str] | None:
    """The strings of a literal list or tuple of strings, else None."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    strings = [item.value for item in node.elts if isinstance(item, ast.Constant) and isinstance(item.value, str)]
    return strings if len(strings) == len(node.elts) else None


# ======================================================================================
# torch.Tensor
# ======================================================================================


@dataclass
class TensorAPI:
    methods: dict[str, frozenset[str]]  # name -> return kinds (dunders included)
    properties: dict[str, frozenset[str]]  # name -> kinds of the value


def _class_body(tree: ast.Module, name: str) -> list[ast.stmt]:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node.body
    raise SystemExit(f"class {name} not found")


def tensor_api(stubs: Stubs, torch_functions: dict[str, list[Signature]], problems: list[str]) -> TensorAPI:
    root = stubs.root
    c_tree = parse(root / "_C" / "__init__.pyi")
    typevars = _typevars(c_tree)
    overloads: dict[str, list[Signature]] = {}
    properties: dict[str, frozenset[str]] = {}
    for node in _class_body(c_tree, "TensorBase"):
        if isinstance(node, ast.FunctionDef):
            decorators = _decorators(node)
            if "property" in decorators:
                kinds = return_kinds(node.returns, typevars, stubs.named)
                properties[node.name] = finish(_union(kinds))
            elif "staticmethod" not in decorators:
                overloads.setdefault(node.name, []).append(signature_of(node, typevars, stubs.named, method=True))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            properties[node.target.id] = finish(_union(return_kinds(node.annotation, typevars, stubs.named)))
    base_kinds = {name: frozenset().union(*(sig.kinds for sig in sigs)) for name, sigs in overloads.items()}
    methods = dict(base_kinds)

    python_names: set[str] = set()
    py_tree = parse(root / "_tensor.py")
    py_typevars = _typevars(py_tree)
    for node in _class_body(py_tree, "Tensor"):
        if isinstance(node, ast.FunctionDef):
            decorators = _decorators(node)
            sig = signature_of(node, py_typevars, stubs.named, method=True)
            if "property" in decorators or "setter" in decorators:
                if node.name not in properties:
                    properties[node.name] = sig.kinds
                continue
            if node.name.startswith("_") and not node.name.startswith("__"):
                continue
            derived: frozenset[str]
            if sig.kinds != {UNKNOWN}:
                derived = sig.kinds
            elif node.name in base_kinds:
                derived = base_kinds[node.name]  # the Python method wraps TensorBase's
            elif node.name in torch_functions and not node.name.startswith("__"):
                derived = _kinds(torch_functions[node.name])  # x.name(...) calls torch.name(x, ...)
            else:
                derived = frozenset({UNKNOWN})
            methods[node.name] = overridden(f"Tensor.{node.name}", derived, problems)
            python_names.add(node.name)
            if methods[node.name] == {UNKNOWN} and not node.name.startswith("_"):
                problems.append(f"Tensor.{node.name}: no annotation, stub or override says what it returns")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if not isinstance(target, ast.Name) or (target.id.startswith("_") and not target.id.startswith("__")):
                    continue
                value = node.value
                if isinstance(value, ast.Call) and _last_name(value.func) == "_add_docstr" and value.args:
                    value = value.args[0]
                source = _last_name(value)
                if source in base_kinds:
                    methods[target.id] = base_kinds[source]
                elif isinstance(value, ast.Name) and value.id in methods:
                    methods[target.id] = methods[value.id]
                elif not target.id.startswith("_"):
                    problems.append(f"Tensor.{target.id}: assigned something this script does not follow")
    for name in set(methods) - python_names:
        methods[name] = overridden(f"Tensor.{name}", methods[name], problems)
    for name, given in TENSOR_METHODS_MISSING_FROM_STUBS.items():
        if name in methods:
            problems.append(f"TENSOR_METHODS_MISSING_FROM_STUBS: the stubs now give Tensor.{name}")
        methods[name] = frozenset(given)
    for name, given in TENSOR_PROPERTIES_MISSING_FROM_STUBS.items():
        if name in properties:
            problems.append(f"TENSOR_PROPERTIES_MISSING_FROM_STUBS: the stubs now give Tensor.{name}")
        properties[name] = frozenset(given)
    return TensorAPI(methods=methods, properties=properties)


# ======================================================================================
# torch.*, torch.nn.functional.*, torch.linalg/fft/special.*
# ======================================================================================


def torch_namespace(stubs: Stubs, problems: list[str]) -> dict[str, list[Signature]]:
    """Public ``torch.*`` functions as ``torch/__init__.py`` binds them (later bindings win)."""
    variable = stubs.functions("torch._C._VariableFunctions")
    found = stubs.functions("torch")
    for name, sigs in list(found.items()):
        if _kinds(sigs) == {UNKNOWN} and name in variable:
            # A Python wrapper (torch/functional.py) without annotation over the _VF op of its name:
            # the wrapper's parameters, the op's returns.
            own = sigs[0]
            found[name] = sigs = [
                Signature(own.params or sig.params, own.annotations if own.params else sig.annotations, sig.kinds)
                for sig in variable[name]
            ]
        found[name] = _override_all(f"torch.{name}", sigs, problems)
    return found


def _override_all(key: str, sigs: list[Signature], problems: list[str]) -> list[Signature]:
    """The overloads, with the return kinds RETURN_OVERRIDES gives for ``key`` if any."""
    kinds = overridden(key, _kinds(sigs), problems)
    if kinds == _kinds(sigs):
        return sigs
    return [Signature(sig.params, sig.annotations, kinds) for sig in sigs]


def submodule_functions(stubs: Stubs, module: str, problems: list[str]) -> dict[str, list[Signature]]:
    """A namespace's public functions; those bound to an unknown return are reported."""
    found = stubs.functions(module, stubs.exported(module))
    for name, sigs in found.items():
        found[name] = _override_all(f"{module}.{name}", sigs, problems)
    return found


_DOC_SIGNATURE = re.compile(r"^\s*(?:[\w.]+\.)?(\w+)\((.*)\)\s*$")


def _leftmost_string(node: ast.expr) -> str | None:
    """The first string literal of a docstring expression (``r"..." + x``, ``"...".format()``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp):
        return _leftmost_string(node.left)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return _leftmost_string(node.func.value)
    return None


def _doc_params(text: str) -> tuple[str, ...]:
    """Parameter names of a docstring signature (``A, *, bool pivot=True, out=None``)."""
    names = []
    depth = 0
    current = ""
    for char in text + ",":
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            head = current.split("=", 1)[0].strip().lstrip("*")
            words = re.findall(r"\w+", head)
            if words:
                names.append(words[-1])
            current = ""
        else:
            current += char
    return tuple(names)


def docstring_functions(stubs: Stubs, module: str, problems: list[str]) -> dict[str, list[Signature]]:
    """Functions of torch.linalg/fft/special: ``name = _add_docstr(_linalg.linalg_name, doc)``.

    Their C functions have no stubs; the docstring's first line is the signature,
    ``linalg.slogdet(A, *, out=None) -> (Tensor, Tensor)``. Python ``def``s are read as usual.
    """
    path = module_path(stubs.root, module)
    if path is None:
        return {}
    tree = parse(path)
    listed = stubs.exported(module)
    found: dict[str, list[Signature]] = {}
    for node, _ in module_statements(tree.body):
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            found[node.name] = [signature_of(node, {}, stubs.named, method=False)]
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and _last_name(node.value.func) == "_add_docstr"
            and len(node.value.args) == 2
        ):
            continue
        name = node.targets[0].id
        if name.startswith("_"):
            continue
        doc = _leftmost_string(node.value.args[1]) or ""
        first = next((line for line in doc.splitlines() if line.strip()), "")
        call, _, returned = first.partition("->")
        returned = returned.strip()
        match = _DOC_SIGNATURE.match(call)
        if match is None:
            problems.append(f"{module}.{name}: no signature line in its docstring")
            continue
        if returned == "Tensor":
            kinds = frozenset({TENSOR})
        elif re.fullmatch(r"\((Tensor,\s*)+Tensor\)", returned):
            kinds = frozenset({TENSORS})
        else:
            kinds = frozenset({UNKNOWN})
        found[name] = [Signature(_doc_params(match.group(2)), (), kinds)]
    for name in list(found):
        found[name] = _override_all(f"{module}.{name}", found[name], problems)
        if listed and name not in listed:
            del found[name]
    return found


# ======================================================================================
# Introspection: nn.Module classes, ndarray and Module attributes
# ======================================================================================


@dataclass
class NNClasses:
    with_state: set[str]
    stateless: set[str]
    optional_state: set[str]  # stateless by default, with state given some arguments
    containers: set[str]
    reasons: dict[str, str]


class _InitReader:
    """Reads the ``__init__`` chain of an nn class for what registers parameters or buffers.

    A *marker* is: a call to ``Parameter``/``UninitializedParameter``/``UninitializedBuffer``/
    ``Buffer``; ``register_buffer``/``register_parameter`` with a value; an assignment to
    ``self.weight``/``self.bias``; constructing a torch.nn class that has state. A marker counts
    as state *by default* unless it only runs under an ``if`` that the defaults of the
    ``__init__`` parameters make false (``if affine:`` with ``affine=False``), or it registers
    an ``__init__`` parameter whose default is None (``register_buffer("weight", weight)``).
    Conditions the defaults cannot decide count as taken.
    """

    MARKER_CALLS = frozenset({"Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer"})

    def __init__(self, judge: Callable[[type], str | None]) -> None:
        self.judge = judge  # the state of another nn class, or None while it is being judged

    def read(self, cls: type, module_base: type) -> tuple[bool, bool, str]:
        """(state by default, state given some arguments, the marker that decided)."""
        defaults: dict[str, object] = {}
        inits = []
        for klass in cls.__mro__:
            if klass is module_base or not klass.__module__.startswith("torch.nn"):
                continue
            init = klass.__dict__.get("__init__")
            if init is None:
                continue
            inits.append(init)
            try:
                parameters = inspect.signature(init).parameters.values()
            except (TypeError, ValueError):
                continue
            for param in parameters:
                if param.name not in defaults:
                    defaults[param.name] = param.default
        by_default = possible = False
        why = ""
        for init in inits:
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(init)))
            except (OSError, TypeError, SyntaxError):
                continue
            function = tree.body[0]
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for marker, taken in self._markers(function.body, defaults, init.__globals__, True):
                possible = True
                if taken and not by_default:
                    by_default, why = True, marker
                elif not why:
                    why = marker
        return by_default, possible, why

    def _markers(
        self, body: Sequence[ast.stmt], defaults: dict[str, object], names: dict, taken: bool
    ) -> Iterator[tuple[str, bool]]:
        for node in body:
            if isinstance(node, ast.If):
                value = self._truth(node.test, defaults)
                yield from self._markers(node.body, defaults, names, taken and value is not False)
                yield from self._markers(node.orelse, defaults, names, taken and value is not True)
                continue
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            children = [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)]
            children += [stmt for handler in getattr(node, "handlers", ()) for stmt in handler.body]
            if children:
                yield from self._markers(children, defaults, names, taken)
            for sub in _walk_expressions(node):
                yield from self._expression_marker(sub, defaults, names, taken)
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and _last_name(target.value) == "self"
                        and target.attr in ("weight", "bias")
                        and not _none_by_default(node.value, defaults)
                        and not _flag(node.value, defaults)
                    ):
                        yield f"self.{target.attr} = ...", taken

    def _expression_marker(
        self, node: ast.expr, defaults: dict[str, object], names: dict, taken: bool
    ) -> Iterator[tuple[str, bool]]:
        if not isinstance(node, ast.Call):
            return
        called = _last_name(node.func)
        if called in self.MARKER_CALLS:
            yield f"{called}(...)", taken
        elif called in ("register_buffer", "register_parameter"):
            value = node.args[1] if len(node.args) > 1 else None
            value = next((kw.value for kw in node.keywords if kw.arg in ("tensor", "param")), value)
            if value is not None and not _none_by_default(value, defaults):
                yield f"{called}(...)", taken
            elif value is not None and isinstance(value, ast.Name):
                yield f"{called}(..., {value.id}=None)", False
        else:
            target = _resolve(node.func, names)
            if isinstance(target, type) and target.__module__.startswith("torch.nn"):
                state = self.judge(target)
                if state == "state":
                    yield f"{target.__name__}(...)", taken

    def _truth(self, test: ast.expr, defaults: dict[str, object]) -> bool | None:
        """The test's value under the defaults, or None when they do not decide it."""
        if isinstance(test, ast.Constant):
            return bool(test.value)
        if isinstance(test, ast.Name) or (isinstance(test, ast.Attribute) and _last_name(test.value) == "self"):
            name = test.id if isinstance(test, ast.Name) else test.attr
            value = defaults.get(name, inspect.Parameter.empty)
            if value is inspect.Parameter.empty or not isinstance(value, (bool, int, float, str, type(None))):
                return None
            return bool(value)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._truth(test.operand, defaults)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            values = [self._truth(value, defaults) for value in test.values]
            if isinstance(test.op, ast.And):
                return False if False in values else None if None in values else True
            return True if True in values else None if None in values else False
        if (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            left = test.left
            key = left.id if isinstance(left, ast.Name) else left.attr if isinstance(left, ast.Attribute) else None
            value = defaults.get(key, inspect.Parameter.empty) if key else inspect.Parameter.empty
            if value is inspect.Parameter.empty:
                return None
            return (value is None) == isinstance(test.ops[0], ast.Is)
        return None


def _walk_expressions(node: ast.stmt) -> Iterator[ast.expr]:
    """The expressions of one statement, not those of statements nested in it."""
    stack = [child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.stmt)]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.expr):
            yield current
        stack.extend(child for child in ast.iter_child_nodes(current) if not isinstance(child, ast.stmt))


def _none_by_default(value: ast.expr, defaults: dict[str, object]) -> bool:
    """Is ``value`` None, or an ``__init__`` parameter that defaults to None?"""
    if isinstance(value, ast.Constant) and value.value is None:
        return True
    return isinstance(value, ast.Name) and value.id in defaults and defaults[value.id] is None


def _flag(value: ast.expr, defaults: dict[str, object]) -> bool:
    """Is ``value`` an ``__init__`` parameter whose default is a plain value (``bias=True``)?"""
    return (
        isinstance(value, ast.Name) and value.id in defaults and isinstance(defaults[value.id], (bool, int, float, str))
    )


def _resolve(func: ast.expr, names: dict) -> object:
    dotted = _dotted(func)
    if dotted is None:
        return None
    head, *rest = dotted.split(".")
    value = names.get(head)
    for part in rest:
        value = getattr(value, part, None)
    return value


def nn_classes() -> NNClasses:
    import torch.nn as nn
    from torch.nn.modules import container

    exported = {}
    for name in dir(nn):
        value = getattr(nn, name)
        if not name.startswith("_") and isinstance(value, type) and issubclass(value, nn.Module):
            exported[name] = value
    container_bases = tuple(
        value
        for value in vars(container).values()
        if isinstance(value, type) and issubclass(value, nn.Module) and value.__module__ == container.__name__
    )
    verdicts: dict[type, str | None] = {}
    reasons: dict[str, str] = {}
    optional: set[str] = set()

    def judge(cls: type) -> str | None:
        if cls in verdicts:
            return verdicts[cls]
        verdicts[cls] = None  # being judged: a cycle reads as no state
        if cls.__name__ in NN_STATE_OVERRIDES and cls.__module__.startswith("torch.nn"):
            verdict, why = NN_STATE_OVERRIDES[cls.__name__], "override (see NN_STATE_OVERRIDES)"
        elif issubclass(cls, container_bases):
            verdict, why = "container", "a container (torch/nn/modules/container.py)"
        else:
            by_default, possible, marker = reader.read(cls, nn.Module)
            verdict = "state" if by_default else "stateless"
            why = marker or "no marker in __init__"
            if possible and not by_default:
                optional.add(cls.__name__)
        verdicts[cls] = verdict
        reasons[cls.__name__] = why
        return verdict

    reader = _InitReader(judge)
    result = NNClasses(set(), set(), set(), set(), {})
    for name, cls in sorted(exported.items()):
        if cls is nn.Module:
            continue  # the base class: neither; a subclass decides for itself
        verdict = judge(cls)
        qualified = f"torch.nn.{name}"
        {"state": result.with_state, "stateless": result.stateless, "container": result.containers}[
            verdict or "stateless"
        ].add(qualified)
        if cls.__name__ in optional and verdict == "stateless":
            result.optional_state.add(qualified)
        result.reasons[qualified] = reasons.get(cls.__name__, "")
    return result


def _import_dotted(name: str) -> object:
    module, _, attribute = name.rpartition(".")
    return getattr(importlib.import_module(module), attribute)


def public_attributes(obj: object) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


# ======================================================================================
# Assembling the sets
# ======================================================================================


@dataclass
class Knowledge:
    torch_version: str
    numpy_version: str
    sets: dict[str, tuple[str, frozenset[str]]]  # NAME -> (comment, names), in output order
    report: list[str]


def build(problems: list[str]) -> Knowledge:
    import numpy as np
    import torch
    import torch.nn as nn

    stubs = Stubs(torch_root())
    torch_functions = torch_namespace(stubs, problems)
    tensor = tensor_api(stubs, torch_functions, problems)
    methods = {name: kinds for name, kinds in tensor.methods.items() if not name.startswith("_")}

    def by_kind(mapping: dict[str, frozenset[str]], kind: str) -> set[str]:
        return {name for name, kinds in mapping.items() if kind in kinds}

    sets: dict[str, tuple[str, frozenset[str]]] = {}

    def emit(name: str, comment: str, names: Iterable[str]) -> None:
        sets[name] = (comment, frozenset(names))

    emit(
        "TENSOR_METHODS",
        "Public methods of torch.Tensor: TensorBase in torch/_C/__init__.pyi and Tensor in torch/_tensor.py.",
        methods,
    )
    emit(
        "TENSOR_METHODS_RETURNING_TENSOR",
        "Tensor methods returning a Tensor (or Self) in at least one overload.",
        by_kind(methods, TENSOR),
    )
    emit(
        "TENSOR_METHODS_RETURNING_TENSORS",
        "Tensor methods returning a tuple, list or named tuple of tensors in at least one overload.",
        by_kind(methods, TENSORS),
    )
    emit(
        "TENSOR_METHODS_RETURNING_OTHER",
        "Tensor methods returning something else (a number, bool, Size, list, ndarray, None...) in some overload.",
        by_kind(methods, OTHER),
    )
    properties = {name: kinds for name, kinds in tensor.properties.items() if not name.startswith("_")}
    emit("TENSOR_PROPERTIES_TENSOR", "Tensor attributes (not methods) that are tensors.", by_kind(properties, TENSOR))
    emit(
        "TENSOR_PROPERTIES_OTHER",
        "Tensor attributes (not methods) that are not tensors.",
        set(properties) - by_kind(properties, TENSOR),
    )
    emit(
        "IN_PLACE_TENSOR_METHODS",
        "Tensor methods that modify the tensor and return it: names ending in one underscore.",
        {name for name in by_kind(methods, TENSOR) if name.endswith("_") and not name.endswith("__")},
    )

    functions = {name: sigs for name, sigs in torch_functions.items() if not name.startswith("_")}
    kinds = {name: _kinds(sigs) for name, sigs in functions.items()}
    emit(
        "TORCH_FUNCTIONS_RETURNING_TENSOR",
        "torch.* functions returning a Tensor in at least one overload.",
        {f"torch.{name}" for name in by_kind(kinds, TENSOR)},
    )
    emit(
        "TORCH_FUNCTIONS_RETURNING_TENSORS",
        "torch.* functions returning a tuple, list or named tuple of tensors in at least one overload.",
        {f"torch.{name}" for name in by_kind(kinds, TENSORS)},
    )
    emit(
        "TORCH_FUNCTIONS_OTHER",
        "torch.* functions returning something else in some overload (classes such as torch.device are not here).",
        {f"torch.{name}" for name in by_kind(kinds, OTHER)},
    )

    def overload_has(sigs: list[Signature], param: str) -> bool:
        return any(param in sig.params and TENSOR in sig.kinds for sig in sigs)

    factories = {name for name, sigs in functions.items() if overload_has(sigs, "device")}
    fft = docstring_functions(stubs, "torch.fft", problems)
    emit(
        "TORCH_FACTORIES_WITH_DEVICE",
        "Functions with an overload that takes device= and returns a Tensor (torch.* and torch.fft.*).",
        {f"torch.{name}" for name in factories}
        | {f"torch.fft.{name}" for name, sigs in fft.items() if overload_has(sigs, "device")},
    )
    emit(
        "LIKE_FACTORIES",
        "torch.*_like factories: shaped like their first argument, on its device unless device= says otherwise.",
        {f"torch.{name}" for name in factories if name.endswith("_like")},
    )
    emit(
        "RANDOM_FACTORIES",
        "torch.* functions drawing from a random generator (a generator= parameter), returning a tensor.",
        {f"torch.{name}" for name, sigs in functions.items() if overload_has(sigs, "generator") and name[-1] != "_"},
    )
    data = {
        name
        for name, sigs in functions.items()
        if any(sig.params[:1] == ("data",) and sig.annotations[0] != "Tensor" and TENSOR in sig.kinds for sig in sigs)
    }
    missing = DATA_FACTORY_OVERRIDES - set(functions)
    if missing:
        problems.append(f"DATA_FACTORY_OVERRIDES names no torch function: {sorted(missing)}")
    emit(
        "DATA_FACTORIES",
        "torch.* factories that copy or wrap host data (a list, an ndarray, a buffer).",
        {f"torch.{name}" for name in data | DATA_FACTORY_OVERRIDES},
    )
    emit(
        "TORCH_FUNCTIONS_WITH_REQUIRES_GRAD",
        "Functions with a requires_grad= parameter (torch.* and torch.fft.*).",
        {f"torch.{name}" for name, sigs in functions.items() if any("requires_grad" in s.params for s in sigs)}
        | {f"torch.fft.{name}" for name, sigs in fft.items() if any("requires_grad" in s.params for s in sigs)},
    )

    nn_functional = submodule_functions(stubs, "torch.nn.functional", problems)
    nn_kinds = {name: _kinds(sigs) for name, sigs in nn_functional.items()}
    emit(
        "NN_FUNCTIONAL_RETURNING_TENSOR",
        "torch.nn.functional.* functions returning a Tensor in at least one overload.",
        {f"torch.nn.functional.{name}" for name in by_kind(nn_kinds, TENSOR)},
    )
    emit(
        "NN_FUNCTIONAL_RETURNING_TENSORS",
        "torch.nn.functional.* functions returning a tuple of tensors in at least one overload.",
        {f"torch.nn.functional.{name}" for name in by_kind(nn_kinds, TENSORS)},
    )
    emit(
        "NN_FUNCTIONAL_OTHER",
        "torch.nn.functional.* functions returning something else in some overload.",
        {f"torch.nn.functional.{name}" for name in by_kind(nn_kinds, OTHER)},
    )
    math_kinds: dict[str, frozenset[str]] = {}
    for module in ("torch.linalg", "torch.fft", "torch.special"):
        for name, sigs in docstring_functions(stubs, module, problems).items():
            math_kinds[f"{module}.{name}"] = _kinds(sigs)
    emit(
        "LINALG_FFT_SPECIAL_RETURNING_TENSOR",
        "torch.linalg.*, torch.fft.*, torch.special.* functions returning a Tensor.",
        by_kind(math_kinds, TENSOR),
    )
    emit(
        "LINALG_FFT_SPECIAL_RETURNING_TENSORS",
        "torch.linalg.*, torch.fft.*, torch.special.* functions returning a (named) tuple of tensors.",
        by_kind(math_kinds, TENSORS),
    )

    classes = nn_classes()
    emit(
        "NN_MODULE_CLASSES_WITH_STATE",
        "torch.nn classes that own parameters or buffers when built with their default arguments.",
        classes.with_state,
    )
    emit(
        "NN_MODULE_CLASSES_STATELESS",
        "torch.nn classes without parameters or buffers when built with their default arguments.",
        classes.stateless,
    )
    emit(
        "NN_MODULE_CLASSES_OPTIONAL_STATE",
        "Stateless by default, with state given some arguments (weight=, affine=True): a subset of the stateless.",
        classes.optional_state,
    )
    emit(
        "NN_CONTAINER_CLASSES",
        "torch.nn containers: their state is that of what they hold.",
        classes.containers,
    )

    ndarray = public_attributes(np.ndarray)
    module_attributes = public_attributes(nn.Module()) | public_attributes(nn.Module)
    emit("NDARRAY_ATTRIBUTES", "Public attribute names of numpy.ndarray.", ndarray)
    emit("MODULE_ATTRIBUTES", "Public attribute names of torch.nn.Module (class and instance).", module_attributes)
    builtin = set().union(*(public_attributes(kind) for kind in BUILTIN_TYPES))
    torch_others = set().union(*(public_attributes(_import_dotted(name)) for name in NON_TENSOR_TORCH_TYPES))
    emit(
        "TENSOR_ONLY_METHODS",
        "Tensor methods that ndarray, nn.Module, the builtins and other common objects lack: evidence of a tensor.",
        set(methods) - ndarray - module_attributes - builtin - torch_others - COMMON_NON_TENSOR_NAMES,
    )
    not_callable = {name for name in ndarray if not callable(getattr(np.ndarray, name))}
    emit(
        "TENSOR_CALLABLE_NOT_NDARRAY_CALLABLE",
        "Methods of tensors that are attributes, not methods, of ndarray: x.size() proves a tensor, x.size does not.",
        set(methods) & not_callable,
    )
    emit(
        "INTEGER_OR_BOOL_RESULT_METHODS",
        "Tensor methods (and operators) whose result is an integer or bool tensor: it never requires grad.",
        INTEGER_OR_BOOL_RESULT_METHODS,
    )
    emit(
        "INTEGER_OR_BOOL_RESULT_FUNCTIONS",
        "Functions whose result is an integer or bool tensor (or a tuple of them): it never requires grad.",
        INTEGER_OR_BOOL_RESULT_FUNCTIONS,
    )

    stale = sorted(set(RETURN_OVERRIDES) - _USED_OVERRIDES)
    if stale:
        problems.append(f"RETURN_OVERRIDES entries that name nothing the stubs have: {stale}")
    unknown_methods = sorted(name for name, k in methods.items() if k <= {UNKNOWN, REMOVED})
    unknown_functions = sorted(name for name, k in kinds.items() if k <= {UNKNOWN, REMOVED})
    report = [
        f"tensor methods in no return set: {unknown_methods}",
        f"torch functions in no return set: {unknown_functions}",
        f"nn.functional in no return set: {sorted(n for n, k in nn_kinds.items() if k <= {UNKNOWN})}",
        f"linalg/fft/special in no return set: {sorted(n for n, k in math_kinds.items() if k <= {UNKNOWN})}",
        "nn classes (verdict: the marker that decided):",
        *(
            f"  {name}: {'state' if name in classes.with_state else 'stateless'}: {classes.reasons[name]}"
            for name in sorted(classes.reasons)
            if name not in classes.containers
        ),
    ]
    return Knowledge(
        torch_version=torch.__version__,
        numpy_version=np.__version__,
        sets=sets,
        report=report,
    )


# ======================================================================================
# Self-check against torch at run time
# ======================================================================================


def _call(owner: object, name: str, *args: object) -> object:
    return getattr(owner, name)(*args)


def _integer_or_bool_probes() -> dict[str, Callable[[], object]]:
    """A call of every INTEGER_OR_BOOL entry on tensors that require grad (or on integer tensors
    for the bitwise ones, which refuse floats)."""
    import torch

    x = torch.randn(3, 4, requires_grad=True)
    y = torch.randn(3, 4, requires_grad=True)
    i = torch.randint(0, 8, (3, 4))
    j = torch.randint(1, 3, (3, 4))
    p = torch.rand(3, 4, requires_grad=True)
    probes: dict[str, Callable[[], object]] = {}
    binary = "eq ne lt le gt ge greater greater_equal less less_equal not_equal isclose"
    for name in (*binary.split(), "logical_and", "logical_or", "logical_xor"):
        probes[name] = partial(_call, x, name, y)
        probes[f"torch.{name}"] = partial(_call, torch, name, x, y)
    unary = "isnan isinf isfinite isposinf isneginf isreal signbit logical_not argmax argmin argsort argwhere nonzero"
    for name in (*unary.split(), "count_nonzero", "long", "int", "short", "char", "byte", "bool"):
        probes[name] = partial(_call, x, name)
        if hasattr(torch, name):
            probes[f"torch.{name}"] = partial(_call, torch, name, x)
    for name in "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift".split():
        probes[name] = partial(_call, i, name, j)
        probes[f"torch.{name}"] = partial(_call, torch, name, i, j)
    probes["bitwise_not"] = lambda: i.bitwise_not()
    probes["torch.bitwise_not"] = lambda: torch.bitwise_not(i)
    probes["nonzero_static"] = lambda: x.nonzero_static(size=2)
    probes["torch.nonzero_static"] = lambda: torch.nonzero_static(x, size=2)
    probes["multinomial"] = lambda: p.multinomial(2)
    probes["torch.multinomial"] = lambda: torch.multinomial(p, 2)
    for name in "__eq__ __ne__ __lt__ __le__ __gt__ __ge__".split():
        probes[name] = partial(_call, x, name, y)
    for name in "__and__ __or__ __xor__ __rand__ __ror__ __rxor__ __lshift__ __rshift__".split():
        probes[name] = partial(_call, i, name, j)
    probes["__invert__"] = lambda: i.__invert__()
    probes["torch.isin"] = lambda: torch.isin(x, y)
    probes["torch.bucketize"] = lambda: torch.bucketize(x, torch.sort(y.flatten()).values)
    probes["torch.searchsorted"] = lambda: torch.searchsorted(torch.sort(y.flatten()).values, x)
    probes["torch.unravel_index"] = lambda: torch.unravel_index(i, (4, 2))
    probes["torch.randint"] = lambda: torch.randint(0, 5, (3,))
    probes["torch.randint_like"] = lambda: torch.randint_like(x, 5)
    probes["torch.randperm"] = lambda: torch.randperm(5)
    probes["torch.tril_indices"] = lambda: torch.tril_indices(3, 3)
    probes["torch.triu_indices"] = lambda: torch.triu_indices(3, 3)
    probes["torch.nn.functional.one_hot"] = lambda: torch.nn.functional.one_hot(i)
    return probes


def _raises_runtime_error(function: Callable, args: tuple) -> bool:
    try:
        function(*args)
    except RuntimeError:
        return True
    except Exception:
        return False
    return False


def self_check(knowledge: Knowledge) -> list[str]:
    """What torch at run time contradicts; also prints what it has that the stubs lack."""
    import torch
    import torch.nn as nn

    failures: list[str] = []
    sets = {name: names for name, (_, names) in knowledge.sets.items()}

    probes = _integer_or_bool_probes()
    entries = [*INTEGER_OR_BOOL_RESULT_METHODS, *INTEGER_OR_BOOL_RESULT_FUNCTIONS]
    for entry in sorted(entries):
        probe = probes.get(entry)
        if probe is None:
            failures.append(f"{entry}: no probe in _integer_or_bool_probes")
            continue
        result = probe()
        results = result if isinstance(result, tuple) else (result,)
        for item in results:
            if not isinstance(item, torch.Tensor) or item.is_floating_point() or item.is_complex():
                failures.append(f"{entry}: returned {getattr(item, 'dtype', type(item).__name__)}")
            elif item.requires_grad:
                failures.append(f"{entry}: the result requires grad")

    # Removed functions raise (RuntimeError: "... deprecated since version 1.9 and is now removed").
    x = torch.randn(3, 3)
    for key, kinds in sorted(RETURN_OVERRIDES.items()):
        if REMOVED not in kinds:
            continue
        owner, _, name = key.rpartition(".")
        function = getattr(torch.Tensor if owner == "Tensor" else importlib.import_module(owner), name)
        if not any(_raises_runtime_error(function, args) for args in ((x,), (x, x))):
            failures.append(f"{key}: marked REMOVED but does not raise RuntimeError")

    def count_state(module: nn.Module) -> int:
        return len(list(module.parameters())) + len(list(module.buffers()))

    with_state = sets["NN_MODULE_CLASSES_WITH_STATE"]
    stateless = sets["NN_MODULE_CLASSES_STATELESS"]
    checked = 0
    for qualified in sorted(with_state | stateless):
        name = qualified.rsplit(".", 1)[1]
        cls = getattr(nn, name)
        try:
            if name in ("TransformerEncoder", "TransformerDecoder"):
                module = _build_transformer_stack(nn, name)
            elif name in NN_SAMPLE_ARGS:
                args, kwargs = NN_SAMPLE_ARGS[name]
                module = cls(*args, **kwargs)
            else:
                module = cls()  # only classes that need no argument
        except (TypeError, ValueError, RuntimeError):
            if name in NN_SAMPLE_ARGS or name.startswith("Transformer"):
                raise
            continue  # needs arguments: not in the sample
        checked += 1
        has_state = count_state(module) > 0
        if has_state != (qualified in with_state):
            failures.append(f"{qualified}: {count_state(module)} parameters and buffers when built")
    print(f"self-check: {checked} nn classes instantiated, {len(entries)} integer-or-bool entries called")

    # Every public name of torch.Tensor is a method or a property here, and is the right one.
    methods = sets["TENSOR_METHODS"]
    properties = sets["TENSOR_PROPERTIES_TENSOR"] | sets["TENSOR_PROPERTIES_OTHER"]
    for name in sorted(public_attributes(torch.Tensor) - methods - properties):
        failures.append(f"Tensor.{name}: at run time, but neither in the stubs nor in *_MISSING_FROM_STUBS")
    for name in sorted(methods | properties):
        value = getattr(torch.Tensor, name, None)
        if value is None:
            failures.append(f"Tensor.{name}: in the stubs, not at run time")
        elif callable(value) != (name in methods):
            failures.append(f"Tensor.{name}: {'callable' if callable(value) else 'not callable'} at run time")
    return failures


# ======================================================================================
# Writing the module
# ======================================================================================


def _wrapped(words: Sequence[str], indent: str) -> list[str]:
    return textwrap.wrap(" ".join(words), width=WIDTH, initial_indent=indent, subsequent_indent=indent) or [indent]


def _common_prefix(names: frozenset[str]) -> str:
    """The dotted prefix every name shares (``torch.nn.``, or ``torch.`` for torch.fft.* with
    torch.*), or ''."""
    parts = [name.split(".")[:-1] for name in names]
    prefix: list[str] = []
    for segments in zip(*parts):
        if len(set(segments)) != 1:
            break
        prefix.append(segments[0])
    return ".".join(prefix) + "." if prefix else ""


def render(knowledge: Knowledge) -> str:
    torch_version = knowledge.torch_version.split("+", 1)[0]
    lines = [
        f'"""What PyTorch {torch_version}\'s API takes and returns, read from its stubs; see the generator.',
        "",
        f"Generated by ``{COMMAND}`` with torch {knowledge.torch_version} and",
        f"numpy {knowledge.numpy_version}. Do not edit by hand: change the script (its hand-written overrides",
        "live there) and run it again; ``--check`` says whether this file is up to date.",
        '"""',
        "",
        f'TORCH_VERSION = "{torch_version}"',
        f'NUMPY_VERSION = "{knowledge.numpy_version}"',
    ]
    for name, (comment, names) in knowledge.sets.items():
        lines += ["", *(f"# {line}" for line in textwrap.wrap(comment, WIDTH - 2))]
        prefix = _common_prefix(names)
        words = sorted(item[len(prefix) :] for item in names)
        if prefix:
            one_line = f'{name}: frozenset[str] = frozenset("{prefix}" + name for name in "{" ".join(words)}".split())'
        else:
            one_line = f'{name}: frozenset[str] = frozenset("{" ".join(words)}".split())'
        if not words:
            lines.append(f"{name}: frozenset[str] = frozenset()")
        elif len(one_line) <= WIDTH:
            lines.append(one_line)
        elif prefix:
            lines += [
                f"{name}: frozenset[str] = frozenset(",
                f'    "{prefix}" + name',
                '    for name in """',
                *_wrapped(words, "    "),
                '    """.split()',
                ")",
            ]
        else:
            lines += [
                f"{name}: frozenset[str] = frozenset(",
                '    """',
                *_wrapped(words, "    "),
                '    """.split()',
                ")",
            ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed module differs; write nothing")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="the module to write or check")
    parser.add_argument("--report", action="store_true", help="print how each name was classified")
    options = parser.parse_args(argv)

    problems: list[str] = []
    knowledge = build(problems)
    if options.report:
        print("\n".join(knowledge.report))
    failures = problems + self_check(knowledge)
    if failures:
        print("generate_torch_knowledge: the data disagrees with torch:", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        return 2
    text = render(knowledge)
    if options.check:
        current = options.output.read_text(encoding="utf-8") if options.output.is_file() else ""
        if current != text:
            diff = difflib.unified_diff(
                current.splitlines(), text.splitlines(), str(options.output), "generated", lineterm="", n=0
            )
            print("\n".join(list(diff)[:60]))
            print(f"{options.output} is stale: run {COMMAND}", file=sys.stderr)
            return 1
        print(f"{options.output} is up to date")
        return 0
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(text, encoding="utf-8")
    for name, (_, names) in knowledge.sets.items():
        print(f"{len(names):5d} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
