"""Batches and models from the libraries people use with PyTorch, as data.

The torch tables (``api``, ``torch_generated``) say what torch's own calls do; this one says what
the calls of the libraries around it hand back and where: a ``DataLoader``'s batches, a
tokenizer's ``BatchEncoding``, a torchvision transform's tensor, a model loaded with
``device_map=``. Each entry names the library and the version whose source the fact was read
from, and the file: a fact that a later version changes is changed here, with the new version.
The analysis (``analysis/libraries.py``) consults these tables and nothing else for them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Read:
    """Where a fact was read: the distribution on PyPI, its version, the file in it."""

    library: str
    version: str
    file: str


class BatchForm(enum.Enum):
    """How one batch holds its tensors."""

    # A tuple or an object with tensor attributes: ``x, y = batch``, ``batch.text``, ``batch[0]``.
    FIELDS = "fields"
    # A dict of tensors (AllenNLP's ``TensorDict``): ``model(**batch)``.
    MAPPING = "mapping"


@dataclass(frozen=True, slots=True)
class Loader:
    """A class whose instances yield batches of tensors when iterated: on the CPU, unless the
    loader was built with ``device_keyword=`` or given a device by ``device_method``."""

    read: Read
    fact: str
    form: BatchForm = BatchForm.FIELDS
    device_keyword: str | None = None
    device_method: str | None = None
    # Its batches stack the dataset's items where those are (``torch.stack``), so a dataset made of
    # tensors on the device yields batches there.
    collates_dataset: bool = False
    # ``Cls.splits(datasets, ...)`` builds one loader per dataset, with the same keywords.
    splits: bool = False
    # Where the CPU default is younger than the class: before this version, a loader built without
    # a device made its batches elsewhere (``(library, version)``). Code that does not pin the
    # library may have been written against either, so such batches are only likely on the CPU.
    cpu_default_since: tuple[str, str] | None = None


_TORCH_DATA = Read("torch", "2.13.0", "torch/utils/data/_utils/collate.py")
_DATA_LOADER = Loader(
    _TORCH_DATA,
    "default_collate stacks the items' tensors where they are (torch.stack) and makes numbers and arrays "
    "into CPU tensors (torch.as_tensor, torch.tensor); pin_memory keeps them on the CPU",
    collates_dataset=True,
)
_TORCHTEXT = Loader(
    Read("torchtext", "0.6.0", "torchtext/data/iterator.py, torchtext/data/batch.py"),
    "each Batch's fields (batch.text, batch.label) are made by Field.process(..., device=device): on the CPU "
    "when device is None (the default) or an int (0.6.0 logs a warning and uses the CPU)",
    device_keyword="device",
    splits=True,
    # torchtext 0.2.3, torchtext/data/iterator.py: "Use -1 for CPU and None for the currently
    # active GPU device" (None becomes -1 only where CUDA is not available); 0.3.1 made None the CPU.
    cpu_default_since=("torchtext", "0.3"),
)
# The same classes, moved to ``torchtext.legacy.data`` in 0.9 and unchanged there (read in the
# repository, torchtext/legacy/data/iterator.py at commit 3f8c328; the legacy releases are not on PyPI
# for this Python).
_TORCHTEXT_LEGACY = Loader(
    Read("torchtext", "legacy (repository commit 3f8c328)", "torchtext/legacy/data/iterator.py"),
    _TORCHTEXT.fact,
    device_keyword="device",
    splits=True,
)
_ALLENNLP = Loader(
    Read("allennlp", "2.10.1", "allennlp/data/data_loaders/multiprocess_data_loader.py"),
    "batches are TensorDicts, moved by nn_util.move_to_device only when cuda_device= is given or "
    "set_target_device() was called",
    form=BatchForm.MAPPING,
    device_keyword="cuda_device",
    device_method="set_target_device",
)
LOADERS: dict[str, Loader] = {
    "torch.utils.data.DataLoader": _DATA_LOADER,
    "torch.utils.data.dataloader.DataLoader": _DATA_LOADER,
    **{f"torchtext.data.{name}": _TORCHTEXT for name in ("Iterator", "BucketIterator", "BPTTIterator")},
    **{f"torchtext.data.iterator.{name}": _TORCHTEXT for name in ("Iterator", "BucketIterator", "BPTTIterator")},
    **{f"torchtext.legacy.data.{name}": _TORCHTEXT_LEGACY for name in ("Iterator", "BucketIterator", "BPTTIterator")},
    **{
        f"allennlp.data.{path}{name}": _ALLENNLP
        for path in ("", "data_loaders.")
        for name in ("MultiProcessDataLoader", "SimpleDataLoader")
    },
}

# Datasets of tensors: item ``i`` is the tuple of row ``i`` of each tensor, where that tensor is.
TENSOR_DATASETS: dict[str, Read] = {
    "torch.utils.data.TensorDataset": Read("torch", "2.13.0", "torch/utils/data/dataset.py"),
}

# Datasets made of another's items, chosen by index: ``Subset(dataset, indices)``, and the list of
# subsets ``random_split(dataset, lengths)`` returns. Their items are the dataset's, where those are.
_TORCH_DATASET = Read("torch", "2.13.0", "torch/utils/data/dataset.py")
DATASET_SUBSETS: dict[str, Read] = {f"torch.utils.data.{path}Subset": _TORCH_DATASET for path in ("", "dataset.")}
DATASET_SPLITS: dict[str, Read] = {f"torch.utils.data.{path}random_split": _TORCH_DATASET for path in ("", "dataset.")}

# torchvision datasets whose item is ``(transform(image), target)`` with ``target`` a Python int
# (``int(self.targets[index])``) unless ``target_transform=`` changes it; the image is a PIL image
# unless ``transform=`` makes it a tensor.
_VISION = "torchvision", "0.28.0"
IMAGE_DATASETS: dict[str, Read] = {
    **{
        f"torchvision.datasets.{name}": Read(*_VISION, "torchvision/datasets/mnist.py")
        for name in ("MNIST", "FashionMNIST", "KMNIST")
    },
    **{
        f"torchvision.datasets.{name}": Read(*_VISION, "torchvision/datasets/cifar.py")
        for name in ("CIFAR10", "CIFAR100")
    },
    "torchvision.datasets.SVHN": Read(*_VISION, "torchvision/datasets/svhn.py"),
    "torchvision.datasets.ImageFolder": Read(*_VISION, "torchvision/datasets/folder.py"),
    "torchvision.datasets.DatasetFolder": Read(*_VISION, "torchvision/datasets/folder.py"),
}
TRANSFORM_KEYWORD = "transform"
TARGET_TRANSFORM_KEYWORD = "target_transform"

# Transforms that turn a PIL image or an ndarray into a new CPU tensor (``to_tensor``:
# ``torch.from_numpy(...)``; ``pil_to_tensor``: ``torch.as_tensor(np.array(pic))``; both refuse a
# tensor): the classes, called on an image, and the functions.
TO_TENSOR_TRANSFORMS: dict[str, Read] = {
    **{
        f"torchvision.transforms.{name}": Read(*_VISION, "torchvision/transforms/transforms.py")
        for name in ("ToTensor", "PILToTensor")
    },
    "torchvision.transforms.v2.ToTensor": Read(*_VISION, "torchvision/transforms/v2/_deprecated.py"),
    "torchvision.transforms.v2.PILToTensor": Read(*_VISION, "torchvision/transforms/v2/_type_conversion.py"),
}
TO_TENSOR_FUNCTIONS: dict[str, Read] = {
    f"torchvision.transforms.functional.{name}": Read(*_VISION, "torchvision/transforms/functional.py")
    for name in ("to_tensor", "pil_to_tensor")
} | {"torchvision.io.read_image": Read(*_VISION, "torchvision/io/image.py")}  # read_file + decode_image, on the CPU
# ``Compose(transforms)(img)`` applies each transform in turn (``for t in self.transforms: img = t(img)``).
COMPOSE: dict[str, Read] = {
    "torchvision.transforms.Compose": Read(*_VISION, "torchvision/transforms/transforms.py"),
    "torchvision.transforms.v2.Compose": Read(*_VISION, "torchvision/transforms/v2/_container.py"),
}
# torchvision's transforms compute on their input where it is, except these: a user's function,
# and the conversions back to an image.
TRANSFORM_NAMESPACES = ("torchvision.transforms.", "torchvision.transforms.v2.")
PLACE_CHANGING_TRANSFORMS = frozenset(
    f"torchvision.transforms.{v2}{name}" for v2 in ("", "v2.") for name in ("Lambda", "ToPILImage")
)

# Hugging Face tokenizers called with ``return_tensors="pt"``: a ``BatchEncoding`` (a dict) of tensors
# made by ``torch.tensor(value)``, on the CPU. ``BatchEncoding.to(device)`` moves every tensor in it,
# in place, and returns the same object. These methods return the ``input_ids`` tensor alone
# (``apply_chat_template``: ``out["input_ids"]``), unless the keyword named is given (``return_dict=True``).
TOKENIZER = Read("transformers", "4.57.1", "transformers/tokenization_utils_base.py")
RETURN_TENSORS_KEYWORD = "return_tensors"
TORCH_TENSORS = "pt"
INPUT_IDS_METHODS: dict[str, str | None] = {"encode": None, "apply_chat_template": "return_dict"}

# ``Cls.from_pretrained(...)`` loads a model, unless the class is one of these (tokenizers, processors,
# configurations, diffusers' schedulers and pipelines, datasets, controlnet_aux's annotators such as
# ``HEDdetector``, whose call returns a PIL image), whose ``.to()`` differs or does not exist.
PRETRAINED = Read("transformers", "4.57.1", "transformers/modeling_utils.py")
PRETRAINED_SUFFIX = ".from_pretrained"
NOT_MODEL_HINTS = ("Tokenizer", "Processor", "Extractor", "Config", "Scheduler", "Pipeline", "Dataset", "Detector")
# ``device_map=``: a device (``"cuda"``, ``0``, ``torch.device(...)``, ``{"": d}``) becomes ``{"": d}``,
# and accelerate's ``dispatch_model`` then calls ``model.to(d)`` with no hooks (one device), so the
# model is on ``d`` and its inputs must be there too (accelerate 1.11.0, accelerate/big_modeling.py).
# These strategies spread it over the devices present: with two or more, hooks move each input to
# its layer and the outputs back to where the input was.
DEVICE_MAP = Read("accelerate", "1.11.0", "accelerate/big_modeling.py")
DEVICE_MAP_KEYWORD = "device_map"
DEVICE_MAP_STRATEGIES = frozenset({"auto", "balanced", "balanced_low_0", "sequential"})
# A quantized load (bitsandbytes) without ``device_map`` gets ``{"": torch.cuda.current_device()}``
# (transformers/quantizers/quantizer_bnb_8bit.py and _4bit.py, ``update_device_map``): on the GPU.
# With 8-bit weights ``dispatch_model`` forces hooks even on one device, and the call does not show
# which kind ``quantization_config`` asks for: with ``device_map=`` too, the inputs may be moved.
QUANTIZATION_KEYWORDS = ("quantization_config", "load_in_8bit", "load_in_4bit")


# Classes of other libraries that derive from ``torch.nn.Module``: a class deriving from one is a module.
MODULE_BASES: dict[str, Read] = {
    "pytorch_lightning.LightningModule": Read("pytorch_lightning", "2.5.6", "pytorch_lightning/core/module.py"),
    "lightning.LightningModule": Read("lightning", "2.5.6", "lightning/pytorch/core/module.py"),
    "lightning.pytorch.LightningModule": Read("lightning", "2.5.6", "lightning/pytorch/core/module.py"),
    "transformers.PreTrainedModel": Read("transformers", "4.57.1", "transformers/modeling_utils.py"),
    "torchmetrics.Metric": Read("torchmetrics", "1.8.2", "torchmetrics/metric.py"),
}
# Functions of other libraries that build a module (``-> nn.Module``).
MODEL_FACTORIES: dict[str, Read] = {"timm.create_model": Read("timm", "1.0.22", "timm/models/_factory.py")}
# torchvision's model builders (``resnet18(...) -> ResNet``, ``get_model(name) -> nn.Module``) build
# modules, except the helpers of its registry and the ``*_Weights`` enums (torchvision/models/_api.py).
VISION_MODELS = "torchvision.models."
VISION_MODEL_HELPERS = frozenset({"list_models", "get_weight", "get_model_weights", "get_model_builder"})
# torchmetrics' classes are ``Metric`` modules (torchmetrics 1.8.2, torchmetrics/metric.py: ``Metric(Module)``).
METRICS = "torchmetrics."

# ``nn.Linear(n, m, device=d)``: torch.nn's modules make their parameters and buffers with
# ``factory_kwargs = {"device": device, "dtype": dtype}``, so a module built with ``device=`` lives there.
MODULE_DEVICE = Read("torch", "2.13.0", "torch/nn/modules/linear.py")
MODULE_DEVICE_KEYWORD = "device"


@dataclass(frozen=True, slots=True)
class ModelMethod:
    """A model method that runs the model on its tensor arguments."""

    read: Read
    # Its result is drawn (sampled, decoded), not differentiated through: it never requires grad.
    draws: bool


# ``generate`` runs under ``@torch.no_grad()`` and builds its sequences on ``input_ids.device``
# (``torch.cat`` of the ids and each next token), which must be the model's device unless
# ``device_map=`` hooks move it; CLIP's feature methods run the towers.
MODEL_METHODS: dict[str, ModelMethod] = {
    "generate": ModelMethod(Read("transformers", "4.57.1", "transformers/generation/utils.py"), draws=True),
    **{
        name: ModelMethod(Read("transformers", "4.57.1", "transformers/models/clip/modeling_clip.py"), draws=False)
        for name in ("get_text_features", "get_image_features")
    },
}


def loader(qualified: str) -> Loader | None:
    """The loader a class builds, by its qualified name."""
    return LOADERS.get(qualified)


def loader_splits(qualified: str) -> Loader | None:
    """``BucketIterator.splits(...)``: the loader each of the returned ones is."""
    owner, _, name = qualified.rpartition(".")
    found = LOADERS.get(owner) if name == "splits" else None
    return found if found is not None and found.splits else None


def is_pretrained_load(qualified: str) -> bool:
    return qualified.endswith(PRETRAINED_SUFFIX)


def pretrained_is_model(qualified: str) -> bool:
    """Is ``Cls.from_pretrained`` a model's, by the class's name (``HEDdetector`` spells it its way)?"""
    name = qualified.removesuffix(PRETRAINED_SUFFIX).rsplit(".", 1)[-1].lower()
    return not any(hint.lower() in name for hint in NOT_MODEL_HINTS)


def keeps_transform_place(qualified: str) -> bool:
    """A torchvision transform class that computes on its input where it is (``Normalize``, ``Resize``)."""
    namespace, _, name = qualified.rpartition(".")
    return f"{namespace}." in TRANSFORM_NAMESPACES and name[:1].isupper() and qualified not in PLACE_CHANGING_TRANSFORMS
