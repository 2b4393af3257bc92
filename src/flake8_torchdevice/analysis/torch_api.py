"""What the analysis knows about the PyTorch API, by qualified name.

Only facts that decide a value's kind or place live here; rule-specific lists
(which ``torch.cuda`` functions need a GPU, say) live with their rule.
"""

from __future__ import annotations

# Tensor factories: a tensor on the CPU unless ``device=`` says otherwise.
TENSOR_FACTORIES: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        "zeros ones empty full rand randn randint randperm arange range linspace logspace eye "
        "tensor as_tensor asarray from_numpy frombuffer empty_strided normal bernoulli poisson "
        "multinomial tril_indices triu_indices complex polar sparse_coo_tensor"
    ).split()
)

# ``torch.zeros_like(x)`` lives where ``x`` lives.
LIKE_FACTORIES: frozenset[str] = frozenset(
    f"torch.{name}_like" for name in "zeros ones empty full rand randn randint".split()
)

# Single-segment ``torch.*`` callables that do not return a tensor.
NON_TENSOR_FUNCTIONS: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        "device load save no_grad enable_grad inference_mode set_grad_enabled autocast manual_seed "
        "seed initial_seed compile Generator Size dtype finfo iinfo typename numel is_tensor "
        "is_storage is_floating_point is_complex is_nonzero is_grad_enabled is_inference_mode_enabled "
        "get_default_dtype set_default_dtype set_default_device get_default_device set_default_tensor_type "
        "set_printoptions set_num_threads get_num_threads use_deterministic_algorithms "
        "are_deterministic_algorithms_enabled set_float32_matmul_precision get_rng_state set_rng_state "
        "broadcast_shapes result_type promote_types can_cast save_on_cpu vmap cond "
        "export symbolic_trace"
    ).split()
)

# Namespaces of functions that return tensors computed from their tensor arguments.
TENSOR_FUNCTION_NAMESPACES = ("torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.")

# Methods that return a tensor on the same device as their receiver.
PLACE_PRESERVING_METHODS: frozenset[str] = frozenset(
    (
        "detach clone contiguous float double half bfloat16 long int short bool byte char type_as "
        "view view_as reshape reshape_as permute transpose t squeeze unsqueeze flatten unflatten "
        "expand expand_as repeat repeat_interleave narrow select index_select masked_select gather "
        "argmax argmin sum mean std var prod max min norm all any abs exp log sqrt pow clamp clip round floor ceil neg "
        "sigmoid softmax log_softmax relu tanh matmul mm bmm mul add sub div where flip roll chunk "
        "to_dense to_sparse pin_memory unfold cumsum cumprod diff triu tril masked_fill index_fill scatter "
        "scatter_add gather take_along_dim nan_to_num lerp addmm baddbmm log1p expm1 rsqrt reciprocal "
        "square erf sin cos atan2 logsumexp amax amin movedim swapaxes"
    ).split()
)

# Methods only tensors have: seeing one proves the result is a tensor.
TENSOR_ONLY_METHODS: frozenset[str] = frozenset(
    "detach contiguous unsqueeze permute requires_grad_ type_as view_as expand_as masked_select "
    "index_select pin_memory bfloat16".split()
)

# Reductions that return a 0-dim tensor when called without a dimension.
REDUCTIONS: frozenset[str] = frozenset("sum mean std var prod max min norm all any".split())

# Module attributes that are parameters (tensors that require grad) in nn.Linear, nn.Conv*...
MODULE_PARAMETERS: frozenset[str] = frozenset({"weight", "bias"})

# Tensor attributes that are tensors themselves.
TENSOR_ATTRIBUTES: frozenset[str] = frozenset({"data", "grad", "T", "mT", "H", "mH", "real", "imag"})

DTYPES: frozenset[str] = frozenset(
    f"torch.{name}"
    for name in (
        "float float16 float32 float64 half double bfloat16 int int8 int16 int32 int64 uint8 long short "
        "bool complex64 complex128 cfloat cdouble float8_e4m3fn float8_e5m2"
    ).split()
)

GRAD_DISABLING_CONTEXTS: frozenset[str] = frozenset({"torch.no_grad", "torch.inference_mode"})

# Calls whose ``device=`` names a device *type* for mixed precision, not a placement; they
# disable themselves where that device is missing.
DEVICE_TYPE_CALLS: frozenset[str] = frozenset(
    {
        "torch.amp.GradScaler",
        "torch.cuda.amp.GradScaler",
        "torch.autocast",
        "torch.amp.autocast",
        "torch.get_autocast_dtype",
        "torch.is_autocast_enabled",
        "torch.amp.custom_fwd",
        "torch.amp.custom_bwd",
    }
)

DATA_LOADERS: frozenset[str] = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})

# Functions of other libraries that build an ``nn.Module`` (whose ``.to()`` is in place).
MODEL_FACTORIES: frozenset[str] = frozenset({"timm.create_model", "torch.hub.load"})

MODULE_BASES: frozenset[str] = frozenset(
    {
        "torch.nn.Module",
        "torch.nn.modules.module.Module",
        "pytorch_lightning.LightningModule",
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "transformers.PreTrainedModel",
        "torchmetrics.Metric",
    }
)

# ``nn.*`` names that are not module classes.
NOT_MODULE_CLASSES: frozenset[str] = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})

PARAMETER_CLASSES: frozenset[str] = NOT_MODULE_CLASSES | {"torch.nn.Buffer"}

TENSOR_TYPES: frozenset[str] = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.nn.Parameter"})

# ``from_pretrained`` objects that are not models (their ``.to()`` differs or does not exist).
_NOT_MODEL_HINTS = ("Tokenizer", "Processor", "FeatureExtractor", "Config", "ImageProcessor")


def is_tensor_function(qualified: str) -> bool:
    if qualified in TENSOR_FACTORIES or qualified in LIKE_FACTORIES:
        return True
    if qualified.startswith(TENSOR_FUNCTION_NAMESPACES):
        return True
    head, _, name = qualified.partition(".")
    return head == "torch" and "." not in name and name[:1].islower() and qualified not in NON_TENSOR_FUNCTIONS


def is_module_class(qualified: str) -> bool:
    """``torch.nn.Linear``, ``torchvision.models.resnet18``... construct a module."""
    last = qualified.rsplit(".", 1)[-1]
    if qualified in NOT_MODULE_CLASSES:
        return False
    if qualified.startswith("torch.nn."):
        in_nn = qualified.count(".") == 2 or qualified.startswith("torch.nn.modules.")
        return in_nn and last[:1].isupper()
    if qualified.startswith("torchvision.models."):
        return "eight" not in last and last != "list_models"  # not the weights helpers
    if qualified.startswith("torchmetrics."):
        return last[:1].isupper()
    return qualified in MODEL_FACTORIES


def pretrained_kind_is_model(receiver_name: str | None) -> bool:
    return receiver_name is not None and not any(hint in receiver_name for hint in _NOT_MODEL_HINTS)
