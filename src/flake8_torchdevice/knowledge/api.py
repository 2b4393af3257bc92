"""Questions about PyTorch's API by qualified name or method name, answered from the data
generated from torch's stubs (``torch_generated``) and the overrides stubs cannot express.

Only what decides a value's kind, place or grad lives here; rule-specific lists (which
``torch.cuda`` functions need a GPU) live with their rule.
"""

from __future__ import annotations

import enum
import re

from . import libraries
from . import torch_generated as generated


class Effect(enum.Enum):
    """What a call does to where its result lives."""

    FACTORY = "factory"  # a new tensor on ``device=`` or the default device
    LIKE = "like"  # a new tensor where its first argument is, unless ``device=`` says otherwise
    HOST_DATA = "host data"  # a tensor made from host data: on the CPU unless ``device=``
    COMPUTE = "compute"  # a tensor computed from its tensor arguments, where they are
    COMPUTE_MANY = "compute many"  # a tuple of such tensors
    MOVE = "move"  # ``.to()``, ``.cuda()``, ``.cpu()``
    IN_PLACE = "in place"  # returns its receiver, changed
    OTHER = "other"  # not a tensor (a number, a Size, a device...)


# Factories that wrap or copy host data (a list, an ndarray, a buffer).
HOST_DATA_FACTORIES = generated.DATA_FACTORIES | {"torch.from_dlpack"}
# Legacy typed constructors: ``torch.FloatTensor(3, 4)`` / ``torch.Tensor(data)`` on the CPU.
LEGACY_CPU_CONSTRUCTORS = frozenset(
    f"torch.{dtype}Tensor" for dtype in "Float Double Half BFloat16 Long Int Short Char Byte Bool".split()
) | {"torch.Tensor", "torch.autograd.Variable", "torch.autograd.variable.Variable"}
LEGACY_CUDA_CONSTRUCTORS = frozenset(
    f"torch.cuda.{dtype}Tensor" for dtype in "Float Double Half BFloat16 Long Int Short Char Byte Bool".split()
)
# Functions that compute tensors from their tensor arguments, and those returning several.
_COMPUTE_FUNCTIONS = (
    generated.TORCH_FUNCTIONS_RETURNING_TENSOR
    | generated.NN_FUNCTIONAL_RETURNING_TENSOR
    | generated.LINALG_FFT_SPECIAL_RETURNING_TENSOR
)
_COMPUTE_MANY_FUNCTIONS = (
    generated.TORCH_FUNCTIONS_RETURNING_TENSORS
    | generated.NN_FUNCTIONAL_RETURNING_TENSORS
    | generated.LINALG_FFT_SPECIAL_RETURNING_TENSORS
)
# Namespaces whose functions compute tensors from tensors, beyond what the stubs list.
_TENSOR_NAMESPACES = ("torch.nn.utils.rnn.",)
# ``torch.*`` functions the stubs type as tensors that are not computations on their arguments.
_NOT_COMPUTE = frozenset(f"torch.{name}" for name in "load save device".split())

# Lowercase ``torch.*`` callables that do not return a tensor.
_NOT_TENSOR_FUNCTIONS = frozenset(
    (
        "device load save no_grad enable_grad inference_mode set_grad_enabled autocast manual_seed "
        "seed initial_seed compile typename numel is_tensor is_storage is_floating_point is_complex is_nonzero "
        "is_grad_enabled is_inference_mode_enabled get_default_dtype set_default_dtype set_default_device "
        "get_default_device set_default_tensor_type set_printoptions set_num_threads get_num_threads "
        "use_deterministic_algorithms are_deterministic_algorithms_enabled set_float32_matmul_precision "
        "get_rng_state set_rng_state broadcast_shapes result_type promote_types can_cast save_on_cpu vmap cond "
        "export symbolic_trace finfo iinfo dtype"
    ).split()
)
MOVE_METHODS = frozenset({"to", "cuda", "cpu"})
# ``torch.cuda`` functions that raise on a machine without CUDA, for TDV001 and the project index
# (tests/test_torch_knowledge.py runs each on the CPU build of torch). ``is_available``,
# ``device_count``, ``is_initialized``, ``empty_cache``, ``manual_seed``, ``memory_allocated``,
# ``get_rng_state_all`` (one state per device: none) and ``set_rng_state`` (queued until CUDA
# starts) do not.
NEEDS_GPU = frozenset(
    f"torch.cuda.{name}"
    for name in (
        "set_device synchronize get_device_capability get_device_name get_device_properties "
        "current_device current_stream default_stream Stream Event mem_get_info init get_rng_state "
        "initial_seed set_per_process_memory_fraction ipc_collect "
        "reset_peak_memory_stats reset_max_memory_allocated can_device_access_peer CUDAGraph graphs.CUDAGraph"
    ).split()
)
# Calls of code written for GPUs: ``torch.cuda`` calls that capture CUDA graphs, which exist on
# CUDA alone, and ``torch.nn.parallel``'s copies of a module onto the GPUs it lists (DLRM's
# ``parallel_forward``), by module or by the function's own module.
WRITTEN_FOR_GPUS = frozenset(
    f"torch.cuda.{name}" for name in "make_graphed_callables graph CUDAGraph graphs.CUDAGraph graph_pool_handle".split()
) | frozenset(
    f"torch.nn.parallel.{name}{suffix}" for name in ("replicate", "parallel_apply") for suffix in ("", f".{name}")
)
# Calls that load compiled kernels as a module, by their last names: mmcv's
# ``ext_loader.load_ext("_ext", [...])`` (its point-cloud ops are CUDA kernels alone), and
# ``torch.utils.cpp_extension.load`` / ``load_inline`` where CUDA sources are given. A function that
# runs such a module's kernels is written for them: the CUDA buffers it hands them
# (``torch.cuda.FloatTensor(b, n, 3)`` for ``three_nn_forward``) are the kernels' own.
KERNEL_LOADERS = ("ext_loader.load_ext",)
# A compiled extension imported by a name that says it holds CUDA kernels (``pointnet2_cuda``,
# ``emd_cuda``, ``fused_layer_norm_cuda``: the names ``CUDAExtension`` builds go by), not a flag
# or a helper named for what it does with CUDA (``use_cuda``, ``enable_cuda``, ``move_to_cuda``).
CUDA_KERNEL_MODULE = re.compile(
    r"^(?!(use|is|has|no|not|with|on|to|in|for|via|from|only|run|enable|disable|set|get|check|move|require|init"
    r"|force|allow|can|should|need|sync)_)\w+_cuda$"
)
CUDA_SOURCE_LOADERS = ("cpp_extension.load", "cpp_extension.load_inline")
# Methods of a module subclass that torch calls by name though ``nn.Module`` defines none of them:
# ``torch.nn.utils.parametrize`` calls a parametrization's ``right_inverse``, FSDP and
# ``to_empty`` users call ``reset_parameters`` to fill modules made on the meta device.
MODULE_HOOKS_CALLED_BY_NAME = frozenset({"right_inverse", "reset_parameters"})
# Calls that make a name no earlier run used: a random id, a temporary file or folder, the time the
# run reads. A checkpoint path built from one holds what this run wrote, on this machine.
UNIQUE_PER_RUN = frozenset(
    {
        "uuid.uuid1",
        "uuid.uuid4",
        "tempfile.mkstemp",
        "tempfile.mkdtemp",
        "tempfile.NamedTemporaryFile",
        "tempfile.TemporaryDirectory",
        "time.time",
        "time.strftime",
        "datetime.datetime.now",
        "datetime.datetime.today",
    }
)
# What a training run's checkpoint callback (Lightning's ``ModelCheckpoint``, a trainer's
# ``checkpoint_callback``) says it wrote: ``checkpoint_callback.best_model_path`` names a file the
# trainer of this process saved, on this machine.
CHECKPOINT_CALLBACK = "checkpoint_callback"
PATHS_A_CALLBACK_WROTE = frozenset({"best_model_path", "last_model_path"})
# The files of CUDA source those loaders compile: given one, they build CUDA kernels.
CUDA_SOURCE_SUFFIXES = (".cu", ".cuh")
# torch.distributed collectives: a scope that runs one takes part in a multi-process job.
COLLECTIVES = frozenset(
    "broadcast all_reduce all_gather all_gather_into_tensor reduce reduce_scatter all_to_all gather scatter "
    "broadcast_object_list all_gather_object".split()
)
# Reductions that, given no dimension, reduce the whole tensor to a 0-dim one: ``x.sum()``,
# ``torch.prod(x)`` (tests/fixtures/semantics/holds_full_reduction_is_a_scalar.py).
FULL_REDUCTIONS = frozenset(
    "sum mean std var prod max min norm all any amax amin logsumexp median nanmedian nansum nanmean "
    "count_nonzero".split()
)
# NumPy's elementwise math: given Python numbers it returns a NumPy scalar, which a tensor on any
# device takes as a number (``x * np.log(2 * np.pi)``).
NUMPY_MATH = frozenset(
    f"numpy.{name}"
    for name in "log log2 log10 log1p exp expm1 sqrt cbrt sin cos tan arcsin arccos arctan tanh abs floor ceil "
    "power square reciprocal maximum minimum".split()
)
# Module constants that are Python (or NumPy) numbers: ``np.pi``, ``math.inf``, ``torch.pi``
# (torch's are floats: ``torch.tensor(torch.pi)`` is 0-dim).
NUMBER_CONSTANT_NAMES = frozenset("pi e tau inf nan".split())
NUMBER_CONSTANTS = frozenset(
    f"{module}.{name}" for module in ("math", "numpy", "torch") for name in NUMBER_CONSTANT_NAMES
) - {"torch.tau"}
# Sparse constructors: made where their index and value tensors are, unless ``device=`` says otherwise.
SPARSE_FROM_TENSORS = frozenset(
    f"torch.sparse_{layout}_tensor" for layout in ("coo", "csr", "csc", "bsr", "bsc", "compressed")
)
# Factories made where their tensor arguments are: the sparse constructors, and ``torch.normal``,
# whose overloads that take a tensor mean or std have no ``device=`` and draw where those are
# (semantics/holds_normal_of_tensors_draws_where_they_are.py). With numbers only, on the CPU.
FACTORIES_FOLLOWING_TENSORS = SPARSE_FROM_TENSORS | {"torch.normal"}
# Factories whose result is always 1-dim: iterating one yields 0-dim tensors, numbers to any
# device's operations (``for alpha in torch.linspace(0, 1, n): alpha * x``).
ONE_DIM_FACTORIES = frozenset({"torch.linspace", "torch.logspace", "torch.arange", "torch.range"})
# What a tensor's move methods accept, over all their overloads: the most positional arguments and
# the keyword names (torch 2.13.0, ``torch/_C/__init__.pyi``, class TensorBase; a test reads the
# stub of the installed torch). A call outside these is another class's method: ``cuda(q, meta=m)``.
TENSOR_MOVE_PARAMETERS: dict[str, tuple[int, frozenset[str]]] = {
    "cpu": (1, frozenset({"memory_format"})),
    "cuda": (3, frozenset({"device", "non_blocking", "memory_format"})),
    "to": (4, frozenset({"device", "dtype", "non_blocking", "copy", "memory_format", "other"})),
}

# What the ``nn.Module`` methods that prove a module (``MODULE_ONLY_METHODS``) accept: the most
# positional arguments and the keyword names (torch 2.13.0, ``torch/nn/modules/module.py``; a test
# reads the installed torch's signatures; ``state_dict``'s legacy positional ones). A call outside
# these is another class's method (``LudwigModel.train(dataset=...)``) and proves nothing.
MODULE_METHOD_PARAMETERS: dict[str, tuple[int, frozenset[str]]] = {
    "eval": (0, frozenset()),
    "train": (1, frozenset({"mode"})),
    "parameters": (1, frozenset({"recurse"})),
    "named_parameters": (3, frozenset({"prefix", "recurse", "remove_duplicate"})),
    "buffers": (1, frozenset({"recurse"})),
    "named_buffers": (3, frozenset({"prefix", "recurse", "remove_duplicate"})),
    "children": (0, frozenset()),
    "named_children": (0, frozenset()),
    "modules": (1, frozenset({"remove_duplicate"})),
    "named_modules": (3, frozenset({"memo", "prefix", "remove_duplicate"})),
    "state_dict": (3, frozenset({"destination", "prefix", "keep_vars"})),
    "load_state_dict": (3, frozenset({"state_dict", "strict", "assign"})),
    "register_buffer": (3, frozenset({"name", "tensor", "persistent"})),
    "register_parameter": (2, frozenset({"name", "param"})),
    "register_module": (2, frozenset({"name", "module"})),
    "add_module": (2, frozenset({"name", "module"})),
    "zero_grad": (1, frozenset({"set_to_none"})),
    "requires_grad_": (1, frozenset({"requires_grad"})),
    "get_submodule": (1, frozenset({"target"})),
    "apply": (1, frozenset({"fn"})),
}

# Methods and functions whose arguments after the tensor are sizes, shapes, counts or indices read
# on the host: a CPU tensor there is read as numbers, not combined, and the result is where the
# first tensor is.
SHAPE_ARGUMENT_METHODS = frozenset(
    "reshape view expand repeat permute transpose narrow unflatten flip roll squeeze unsqueeze tile movedim "
    "swapaxes split chunk resize_ as_strided index_select".split()
)
# Methods that may give a 0-dim tensor dimensions (``torch.tensor(2.0).expand(3)``): what they
# return is no scalar to an operation on another device
# (semantics/raises_zero_dim_cpu_tensor_given_dimensions_meets_device_tensor.py).
ADDS_DIMENSIONS = frozenset(
    "reshape view expand repeat unsqueeze tile unflatten expand_as view_as reshape_as broadcast_to flatten ravel "
    "atleast_1d atleast_2d atleast_3d".split()
)
SHAPE_ARGUMENT_FUNCTIONS = frozenset(
    {
        "torch.nn.functional.interpolate",
        "torch.nn.functional.pad",
        "torch.nn.functional.one_hot",
        "torch.reshape",
        "torch.nn.utils.rnn.pack_padded_sequence",  # its lengths must be on the CPU
        "torch.nn.utils.rnn.pad_packed_sequence",
        # its lengths are copied to the CPU and its targets to where the log-probabilities are
        # (semantics/holds_ctc_loss_takes_cpu_targets_and_lengths.py)
        "torch.nn.functional.ctc_loss",
        "torch.ctc_loss",
    }
)
# Layers whose call takes host-side lengths after the data, as their functional forms do:
# ``nn.CTCLoss()(log_probs, targets, input_lengths, target_lengths)`` is ``F.ctc_loss``.
SHAPE_ARGUMENT_MODULES = frozenset({"torch.nn.CTCLoss"})
# ``torch.where(condition, x, y)``: the condition picks; the result is where ``x`` and ``y`` are
# (semantics/holds_where_result_is_where_its_values_are.py).
SELECTIONS = frozenset({"torch.where"})


def placing_arguments(qualified: str, count: int) -> slice:
    """Which arguments of the torch function ``qualified`` decide where its result is: the first
    where the rest are sizes or host-side lengths, the values of a selection, else all of them."""
    if qualified in SHAPE_ARGUMENT_FUNCTIONS:
        return slice(0, 1)
    if qualified in SELECTIONS and count == 3:
        return slice(1, None)
    return slice(None)


# Where a 0-dim CPU tensor is no scalar: these operations check every tensor argument's device
# themselves, so ``torch.clamp(x, max=torch.tensor(1.0))`` raises with ``x`` on a GPU while
# ``x * torch.tensor(1.0)`` runs. Seen on CUDA (an H200, torch 2.11) by scripts/probe_zero_dim.py;
# proven by tests/fixtures/semantics/raises_zero_dim_cpu_tensor_*.py. Operators and elementwise
# functions (add, mul, where, maximum, masked_fill...) accept it; operations in neither list are
# given the benefit of the doubt. The simulated meta device lets the clamp bounds through.
DEVICE_CHECKED_FUNCTIONS = frozenset(
    "torch.clamp torch.clip torch.clamp_min torch.clamp_max torch.allclose torch.stack torch.cat torch.mv "
    "torch.nn.functional.mse_loss torch.nn.functional.binary_cross_entropy_with_logits".split()
)
DEVICE_CHECKED_METHODS = frozenset(
    "clamp clamp_ clip clip_ clamp_min clamp_min_ clamp_max clamp_max_ allclose mv".split()
)
# Methods and functions that return the named tuple (values, indices), the ones in the second set
# only when given a dimension (``x.max(1)``, ``torch.max(x, dim=1)``; ``torch.max(x)`` is a 0-dim
# value, ``torch.max(a, b)`` elementwise). The indices are int64 and never require grad, whatever
# the values do (tests/fixtures/semantics/holds_indices_of_max_do_not_require_grad.py).
VALUES_AND_INDICES = frozenset("sort topk kthvalue mode cummax cummin".split())
VALUES_AND_INDICES_ALONG_A_DIM = frozenset("max min median nanmedian".split())
# Methods whose result never requires grad: integer or boolean results, detached copies.
NO_GRAD_METHODS = generated.INTEGER_OR_BOOL_RESULT_METHODS | {"detach"}
NO_GRAD_FUNCTIONS = generated.INTEGER_OR_BOOL_RESULT_FUNCTIONS | {"torch.detach"}

# Libraries that only run on NVIDIA GPUs: a file importing one (or a backend module named for one)
# is CUDA code by construction (TDV001 is silent there; the project index counts it as evidence
# that the file requires CUDA). RAPIDS (cuml, cudf, cugraph) needs a GPU to do anything; CUDA
# extensions built for one model (nvdiffrast, spconv, MinkowskiEngine) too. Not NVML (pynvml):
# files import it, optionally, to log GPU memory.
CUDA_ONLY_LIBRARIES = frozenset(
    {
        "apex",
        "bitsandbytes",
        "cudf",
        "cugraph",
        "cuml",
        "cupy",
        "deep_gemm",
        "flash_attn",
        "isaacgym",
        "isaaclab",
        "isaacsim",
        "megatron",
        "MinkowskiEngine",
        "nvdiffrast",
        "omni",  # NVIDIA Omniverse / Isaac Sim
        "pycuda",
        "setGPU",
        "sglang",
        "spconv",
        "tensorrt",
        "torch2trt",
        "torch_tensorrt",
        "transformer_engine",
        "triton",
        "vllm",
    }
)

# What a benchmark reads off the GPU it measures, which raises without one: its name and
# properties, its peak memory counters, the time between CUDA events (not ``max_memory_allocated``,
# which answers 0 where CUDA was never initialised). A benchmark that reads them outside any check
# is written for that GPU.
GPU_MEASUREMENTS = frozenset(
    f"torch.cuda.{name}" for name in "get_device_name get_device_properties reset_peak_memory_stats Event".split()
)
# Calls of libraries that also run on the CPU which need a GPU (read from faiss 1.7-1.8's Python
# API): its GPU resources and index copies exist only in a GPU build, and ``Kmeans(d, k,
# gpu=True)`` copies its index to every GPU. A file that makes them outside any check runs only on
# GPUs (the project index counts it as evidence that the file requires CUDA).
GPU_ONLY_LIBRARY_CALLS = frozenset(
    {
        "faiss.StandardGpuResources",
        "faiss.index_cpu_to_gpu",
        "faiss.index_cpu_to_all_gpus",
        "faiss.index_cpu_to_gpu_multiple",
    }
)
# ... and the constructors that need one where a keyword asks for it: ``faiss.Kmeans(..., gpu=True)``.
GPU_KEYWORD_CALLS = {"faiss.Kmeans": "gpu"}

# Tests that hold only while torch.fx traces the code symbolically (transformers'
# ``is_torch_fx_proxy(x)``, ``torch.fx._symbolic_trace.is_fx_tracing()``): the tensors are proxies,
# on no device, so nothing in such a branch can meet a tensor on another device.
FX_TRACING_TESTS = frozenset({"is_torch_fx_proxy", "is_fx_tracing"})

# Only modules have these: seeing one proves a module.
MODULE_ONLY_METHODS = frozenset(
    "eval train parameters named_parameters buffers named_buffers children named_children modules "
    "named_modules state_dict load_state_dict register_buffer register_parameter register_module add_module "
    "zero_grad requires_grad_ get_submodule apply forward".split()
)
# Module methods that run the module on their arguments: besides ``forward`` and those the library
# tables read (``generate``), names many libraries give them (samplers, predictors, encoders), and
# those whose results are drawn rather than differentiated through.
_RUNNING_NAMES = frozenset({"forward", "predict", "sample", "infer", "inference"})
_DRAWING_NAMES = frozenset({"predict", "sample", "infer", "inference"})
_RUNNING_PREFIXES = ("encode", "decode", "embed")
# Module methods that return the module itself (in place).
MODULE_CHAIN_METHODS = frozenset("eval train float half double bfloat16 requires_grad_ share_memory".split())
# Every method ``nn.Module`` defines, which it may call on itself: a subclass's override of one runs
# where no code of the project names it (``eval()`` calls ``train``; ``load_state_dict`` calls
# ``_load_from_state_dict``). The private ones read with ``vars(torch.nn.Module)`` of torch 2.13.
MODULE_OWN_METHODS = generated.MODULE_ATTRIBUTES | frozenset(
    """
    _apply _call_impl _compiled_call_impl _get_backward_hooks _get_backward_pre_hooks _get_name _load_from_state_dict
    _maybe_warn_non_full_backward_hook _named_members _register_load_state_dict_pre_hook _register_state_dict_hook
    _replicate_for_data_parallel _save_to_state_dict _slow_forward _wrapped_call_impl
    """.split()
)
# Calls whose first argument is a module, and the wrapper they return is where it is.
MODULE_WRAPPERS = frozenset({"torch.compile", "torch.jit.script", "torch.jit.trace"})
# Wrappers that scatter their inputs to the devices they run on: any input place is fine.
SCATTERING_WRAPPERS = frozenset(
    {
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
    }
)
# Classes a module class derives from: torch's, and the libraries' (``LightningModule``).
# ``torch.nn.Module`` as code may name it.
NN_MODULE = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
MODULE_BASES = NN_MODULE | frozenset(libraries.MODULE_BASES)
# Functions that build a module: ``torch.hub.load`` (whatever the hub entry builds: a model, by
# convention), and the libraries' (``timm.create_model``).
MODEL_FACTORIES = frozenset({"torch.hub.load"}) | frozenset(libraries.MODEL_FACTORIES)
# Classes that are not modules, as bases: a class deriving only from these is a plain class, its
# ``forward`` (``torch.autograd.Function``'s) runs on no module. Builtins by their bare names.
PLAIN_BASES = frozenset(
    {
        "object", "Exception", "ValueError", "RuntimeError", "dict", "list", "tuple", "str", "int", "float",
        "abc.ABC", "typing.Generic", "typing.NamedTuple", "typing.Protocol", "enum.Enum", "enum.IntEnum",
        "torch.autograd.Function", "torch.autograd.function.Function", "torch.utils.data.Dataset",
        "torch.utils.data.IterableDataset", "torch.utils.data.Sampler", "torch.optim.Optimizer",
        "torch.optim.lr_scheduler.LRScheduler", "torch.optim.lr_scheduler._LRScheduler",
    }
)  # fmt: skip
# torch.optim's optimizers (torch 2.13: every subclass of ``torch.optim.Optimizer`` it exports).
# ``load_state_dict`` casts the loaded state to the device each parameter is on *then*; the state
# never follows a later ``model.to()`` (semantics/raises_optimizer_state_loaded_before_the_move).
OPTIMIZERS = frozenset(
    f"torch.optim.{name}"
    for name in "ASGD Adadelta Adafactor Adagrad Adam AdamW Adamax LBFGS Muon NAdam RAdam RMSprop Rprop SGD "
    "SparseAdam".split()
)
# Optimizers whose state holds tensors only with an option: SGD keeps a momentum buffer only
# with a momentum.
STATEFUL_WITH = {"torch.optim.SGD": "momentum"}
# A registered parameter takes only another parameter (or None) when assigned; a buffer takes any tensor.
PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
PARAMETER_CLASSES = PARAMETERS | {"torch.nn.Buffer"}
TENSOR_TYPES = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.nn.Parameter"})
DTYPES = frozenset(
    f"torch.{name}"
    for name in (
        "float float16 float32 float64 half double bfloat16 int int8 int16 int32 int64 uint8 long short "
        "bool complex64 complex128 cfloat cdouble float8_e4m3fn float8_e5m2"
    ).split()
)
# The dtypes whose tensors never require grad: ``x.to(torch.uint8)`` is an image, not a result to
# differentiate (semantics/holds_cast_to_an_integer_dtype_drops_grad.py).
INTEGER_OR_BOOL_DTYPES = frozenset(
    f"torch.{name}" for name in "int int8 int16 int32 int64 uint8 uint16 uint32 uint64 long short bool".split()
)
# Counts that are 0 (never an error) without CUDA: devices, and CUDA memory in use. Compared with
# a number (``device_count() > 1``, ``memory_allocated() < 8e9``), they read as the analysis's
# conditions say. With the availability checks, the index (project/) reads them too.
CUDA_COUNTS = frozenset(
    {
        "torch.cuda.device_count",
        "torch.accelerator.device_count",
        "torch.cuda.memory_allocated",
        "torch.cuda.max_memory_allocated",
        "torch.cuda.memory_reserved",
        "torch.cuda.max_memory_reserved",
    }
)
AVAILABILITY_CHECKS = CUDA_COUNTS | {
    "torch.cuda.is_available",
    "torch.cuda.is_initialized",
    "torch.cuda.default_generators",
    "torch.accelerator.is_available",
    "torch.accelerator.current_accelerator",
    "torch.backends.cudnn.is_available",
    "torch.backends.cudnn.enabled",
}
# The checks that ask whether CUDA is there at all, not how many GPUs or what memory: code they
# guard runs on every machine with a GPU, and the rest on the CPU (a fallback).
IS_AVAILABLE = frozenset({"torch.cuda.is_available"})
# A name that holds an optimizer, by its words: ``optimizer``, ``optim_d``, ``self.optimizer_G``,
# ``optimizerG``; not ``optimized_model`` or ``optimal_net``.
_OPTIMIZER_NAME = re.compile(r"(^|_)optim(i[sz]er)?s?($|_|[A-Z0-9])")


def names_an_optimizer(name: str) -> bool:
    """Does the last part of a dotted name say it holds an optimizer?"""
    return _OPTIMIZER_NAME.search(name.rsplit(".", 1)[-1]) is not None


# Names of features only CUDA has: NCCL, TensorRT, FSDP, bitsandbytes, DeepGEMM, pinned memory (``if
# self.pin_memory:`` opts in to CUDA), a model split over GPUs (transformers' legacy ``if
# self.model_parallel:``, set by a ``parallelize()`` that takes CUDA devices only). A flag named for
# one is a choice of CUDA when true; false, it says nothing: CUDA may well be in use without it.
_CUDA_FEATURES = r"device_ids|nccl|tensorrt|(^|_)trt(_|$)|fsdp|bnb|bitsandbytes|deep_?gemm|pin_?memory|model_?parallel"
CUDA_FEATURES = re.compile(_CUDA_FEATURES, re.IGNORECASE)
# Names of CUDA-only things: CUDA, GPUs, and those features.
MENTIONS_CUDA = re.compile(rf"cuda|gpu|{_CUDA_FEATURES}", re.IGNORECASE)
# Names of a choice against CUDA: ``args.no_cuda``, ``disable_gpu``, ``cpu_only``.
REFUSES_CUDA = re.compile(r"(no|disable|without|skip)_?(cuda|gpu)|cpu", re.IGNORECASE)
# A docstring that says the code needs CUDA: "Requires CUDA", "GPU only", "only runs on CUDA";
# within one clause ("may require grad, is 0-dim, a CUDA check" lists other things).
NEEDS_CUDA = re.compile(
    r"\b(requires?|needs?|only (runs? |works? )?(on|with|for)|must run on)\b[^.,;\n]{0,40}\b(cuda|gpus?|nvidia)\b"
    # "NVIDIA GPUs are needed.", as a whole clause: not "no GPU is needed", nor "... only for training"
    r"|(?<!\bno )(?<!\bnor )\b(nvidia )?(cuda|gpus?) (is|are) (needed|required)(?=\s*([.;:!)]|$))"
    r"|\b(cuda|gpu)[- ]only\b|devices::\s*cuda\b",
    re.IGNORECASE,
)
# Words in the names of functions that take tensors off the device or out of torch (``to_numpy``,
# ``tensor2cpu``, ``save_image``, ``log_metrics``): their results are not where their inputs are.
_LEAVES_THE_DEVICE = frozenset(
    "cpu numpy np host tolist list item items str string print log logger save dump write plot show draw "
    "json pickle len decode scalar float int array image img pil".split()
)
_NAME_WORDS = re.compile(r"[a-z]+|[A-Z][a-z]*|\d+")


def leaves_the_device(name: str) -> bool:
    """Does a function's name say its result leaves the device (``to_numpy``, ``tensor2cpu``)?"""
    return any(word.lower() in _LEAVES_THE_DEVICE for word in _NAME_WORDS.findall(name))


# Command-line options that select the CPU: ``--cpu``, ``--no-cuda``, ``--use_cpu``.
CPU_OPTION = re.compile(r"^--?(use[-_])?(cpu|no[-_]?(cuda|gpu))$", re.IGNORECASE)


def never_false(action: object, default: object) -> bool:
    """An argparse flag true with it and without it: ``action="store_true", default=True``."""
    return action == "store_true" and default is True


# Loads that restore tensors onto the device they were saved from unless told otherwise: the
# keyword of the file (or URL) they read and the position of their ``map_location`` (torch 2.13's
# signatures; ``model_zoo.load_url`` is ``load_state_dict_from_url``).
LOADS_WITH_MAP_LOCATION: dict[str, tuple[str, int]] = {
    "torch.load": ("f", 1),
    "torch.serialization.load": ("f", 1),
    "torch.jit.load": ("f", 1),
    "torch.hub.load_state_dict_from_url": ("url", 2),
    "torch.utils.model_zoo.load_url": ("url", 2),
}
# Saves whose file a load of the same path in the same run reads back: ``save(obj, f)``.
SAVES = frozenset({"torch.save", "torch.serialization.save", "torch.jit.save"})
GRAD_DISABLING_CONTEXTS = frozenset({"torch.no_grad", "torch.inference_mode"})
# ``torch.set_grad_enabled(False)``: called, it switches grad off for what follows; as a context,
# for its block (tests/fixtures/TDV008/good_grad_switched_off.py).
GRAD_SWITCHES = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})
# Calls whose ``device=`` names a device *type* for mixed precision, not a placement.
DEVICE_TYPE_CALLS = frozenset(
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
# A module's methods that assign an attribute named by their first argument (``self.register_buffer("mask", m)``).
REGISTERING_METHODS = frozenset({"register_buffer", "register_parameter", "register_module", "add_module"})
# torch.nn modules without parameters or buffers (by default): they compute wherever their input is.
STATELESS_MODULES = generated.NN_MODULE_CLASSES_STATELESS
# Of those, the ones that hold a tensor when built with one (``weight=``) or told to (``affine=True``).
MODULES_WITH_OPTIONAL_STATE = generated.NN_MODULE_CLASSES_OPTIONAL_STATE
# ``nn.Module`` methods that register state on the module (a parameter, a buffer, a submodule).
MODULE_REGISTERS = frozenset({"register_buffer", "register_parameter", "register_module", "add_module"})
# Their keywords that, set to True, make them build parameters or buffers.
STATE_SWITCHES = frozenset({"affine", "track_running_stats"})
# The arguments through which a module stateless by default gets state: the switches above, and the
# tensors it registers as buffers (``CrossEntropyLoss(weight=w)``); any other argument
# (``reduction=self.reduction``) leaves it without (torch 2.13's ``__init__``s; test_torch_knowledge).
STATE_ARGUMENTS = STATE_SWITCHES | {"weight", "pos_weight", "_random_samples"}


def may_own_parameters(qualified: str | None) -> bool:
    """Could a module of this class own parameters, through which its output requires grad? Not a
    torchmetrics metric: its states are plain tensor attributes (torchmetrics 1.9 ``Metric.add_state``),
    so what it returns requires grad only where its inputs do
    (tests/fixtures/semantics/holds_module_without_parameters_adds_no_grad.py)."""
    return not (qualified or "").startswith("torchmetrics.")


# Tensor attributes that are tensors themselves (``x.data``, ``x.grad``).
TENSOR_ATTRIBUTES = generated.TENSOR_PROPERTIES_TENSOR
# A tensor's attributes that describe it (``shape``, ``dtype``, ``is_cuda``...), not its data nor its device.
TENSOR_METADATA = generated.TENSOR_PROPERTIES_OTHER - {"device", "name"}


def function_effect(qualified: str) -> Effect | None:
    """What calling a ``torch``-namespace function does; None when it is not known to be torch's."""
    if qualified in HOST_DATA_FACTORIES:
        return Effect.HOST_DATA
    if qualified in generated.LIKE_FACTORIES:
        return Effect.LIKE
    if qualified in generated.TORCH_FACTORIES_WITH_DEVICE:
        return Effect.FACTORY
    if qualified in _NOT_COMPUTE or qualified in generated.TORCH_FUNCTIONS_OTHER:
        return Effect.OTHER
    if qualified in _COMPUTE_FUNCTIONS or qualified.startswith(_TENSOR_NAMESPACES):
        return Effect.COMPUTE
    if qualified in _COMPUTE_MANY_FUNCTIONS:
        return Effect.COMPUTE_MANY
    head, _, name = qualified.partition(".")
    if head == "torch" and "." not in name and name[:1].islower() and name not in _NOT_TENSOR_FUNCTIONS:
        return Effect.COMPUTE  # a lowercase ``torch.*`` function the stubs type elsewhere (``torch.cdist``)
    return None


def method_effect(method: str) -> Effect | None:
    """What a tensor method does; None for a name that is not a tensor method."""
    if method in MOVE_METHODS:
        return Effect.MOVE
    if method in generated.IN_PLACE_TENSOR_METHODS:
        return Effect.IN_PLACE
    if method in generated.TENSOR_METHODS_RETURNING_TENSOR:
        return Effect.COMPUTE
    if method in generated.TENSOR_METHODS_RETURNING_TENSORS:
        return Effect.COMPUTE_MANY
    if method in generated.TENSOR_METHODS:
        return Effect.OTHER
    return None


def is_tensor_attribute(name: str) -> bool:
    """A method or property every tensor has (``unsqueeze``, ``device``)."""
    return (
        name in generated.TENSOR_METHODS
        or name in generated.TENSOR_PROPERTIES_OTHER
        or name in generated.TENSOR_PROPERTIES_TENSOR
    )


def runs_module(method: str) -> bool:
    """Does ``module.<method>(x)`` run the module on ``x`` (``model.generate(ids)``, ``clip.encode_image(x)``)?"""
    return method in _RUNNING_NAMES or method in libraries.MODEL_METHODS or method.startswith(_RUNNING_PREFIXES)


def draws(method: str) -> bool:
    """Is what ``module.<method>(x)`` returns drawn (generated tokens, samples), never requiring grad?"""
    known = libraries.MODEL_METHODS.get(method)
    return method in _DRAWING_NAMES or (known is not None and known.draws)


def proves_tensor(method: str) -> bool:
    """A method only tensors have (``unsqueeze``, ``detach``), or one that other arrays have only as
    a plain attribute (``size``): its receiver is a tensor."""
    return method in generated.TENSOR_ONLY_METHODS or method in generated.TENSOR_CALLABLE_NOT_NDARRAY_CALLABLE


def proves_array(method: str) -> bool:
    """A method tensors share with NumPy arrays only (``reshape``, ``transpose``)."""
    return (
        method in generated.TENSOR_METHODS
        and method in generated.NDARRAY_ATTRIBUTES
        and method not in generated.MODULE_ATTRIBUTES
        and method not in _CONTAINER_METHODS
    )


# Methods of Python's containers and strings: seeing one proves nothing about arrays.
_CONTAINER_METHODS = frozenset(
    {name for kind in (list, dict, tuple, str, set) for name in dir(kind) if not name.startswith("_")}
)


def is_module_class(qualified: str) -> bool:
    """``torch.nn.Linear``, ``torchvision.models.resnet18``... construct a module."""
    last = qualified.rsplit(".", 1)[-1]
    if qualified in PARAMETER_CLASSES:
        return False
    if qualified.startswith("torch.nn."):
        in_nn = qualified.count(".") == 2 or qualified.startswith("torch.nn.modules.")
        return in_nn and last[:1].isupper()
    if qualified.startswith(libraries.VISION_MODELS):
        return "eight" not in last and last not in libraries.VISION_MODEL_HELPERS
    if qualified.startswith(libraries.METRICS):
        return last[:1].isupper()
    return qualified in MODEL_FACTORIES


def module_has_state(qualified: str) -> bool:
    """Does a ``torch.nn`` module class own parameters or buffers (``Linear``, ``BatchNorm2d``)?"""
    return qualified in generated.NN_MODULE_CLASSES_WITH_STATE


def fits_tensor_move(method: str, positional: int, keywords: frozenset[str], unpacked: bool) -> bool:
    """Could ``x.<method>(...)`` with these arguments be a tensor's move (``unpacked``: ``*args`` or
    ``**kwargs`` hide some, so it could)? True for a method that is not a move."""
    return _fits(TENSOR_MOVE_PARAMETERS.get(method), positional, keywords, unpacked)


def fits_module_method(method: str, positional: int, keywords: frozenset[str], unpacked: bool) -> bool:
    """Could ``x.<method>(...)`` with these arguments be ``nn.Module``'s method of that name? True
    for a method that proves nothing about a module."""
    return _fits(MODULE_METHOD_PARAMETERS.get(method), positional, keywords, unpacked)


def _fits(
    accepted: tuple[int, frozenset[str]] | None, positional: int, keywords: frozenset[str], unpacked: bool
) -> bool:
    if accepted is None or unpacked:
        return True
    most, names = accepted
    return positional <= most and keywords <= names


# ``copy.deepcopy(x)``: a value like ``x``, where ``x`` is.
COPIES = frozenset({"copy.copy", "copy.deepcopy"})
# torch functions that move the module they are given, in place: FSDP2 shards its parameters
# onto the device mesh (torch 2.13 ``torch/distributed/fsdp/_fully_shard/_fully_shard.py``).
MOVE_MODULES_IN_PLACE = frozenset(
    {
        "torch.distributed.fsdp.fully_shard",
        "torch.distributed._composable.fsdp.fully_shard",
        "torch.distributed._composable.replicate",
    }
)
# Builtins that only look at a module they are given (and ``reveal_type``, or ``reveal`` as the
# analysis tests spell it).
_LOOKING_BUILTINS = frozenset(
    {"print", "len", "isinstance", "repr", "str", "type", "id", "hasattr", "getattr", "vars", "reveal_type", "reveal"}
)


# Containers that register the modules they are given: a list of blocks kept on ``self`` as well
# (``self.blocks = nn.ModuleList(self.blocks_list)``) holds the same objects, which move with the module.
MODULE_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential"})


def leaves_modules_where_they_are(qualified: str | None, builtin: str | None) -> bool:
    """Does a call leave the modules passed to it where they are? torch's functions do (but
    ``fully_shard``), and so do copies and builtins that look; anything else, the project's code
    or another library's (``setup(model)``, ``accelerator.prepare``), may move them in place."""
    if qualified is not None:
        return qualified in COPIES or (qualified.startswith("torch.") and qualified not in MOVE_MODULES_IN_PLACE)
    return builtin in _LOOKING_BUILTINS


# NumPy functions that, given a tensor, call its own method and hand back a tensor where it was
# (``np.squeeze(t)`` is ``t.squeeze()``), or only read its shape: no conversion, on any device
# (tests/fixtures/semantics/holds_numpy_squeeze_keeps_a_tensor.py).
NUMPY_WITHOUT_CONVERSION = frozenset({"numpy.squeeze", "numpy.swapaxes", "numpy.shape", "numpy.ndim", "numpy.size"})
