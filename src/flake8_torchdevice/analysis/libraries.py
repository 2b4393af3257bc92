"""Calls of the libraries around torch (part of the interpreter): what a ``DataLoader``, a
torchtext iterator, a torchvision dataset or transform, a tokenizer or ``from_pretrained`` hands
back, and where. The facts, and the library versions they were read from, are the tables of
``knowledge/libraries``; this module only turns them into values.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..knowledge import api, libraries
from ..knowledge.libraries import BatchForm, Loader
from .domain import (
    CPU,
    NOWHERE,
    SCALAR,
    TENSOR_KINDS,
    UNKNOWN,
    UNKNOWN_PLACE,
    Kind,
    Origin,
    Place,
    PlaceKind,
    Value,
    accelerator,
    mapping,
    may_be_on_accelerator,
    sequence,
    tensor,
    with_module,
)
from .facts import Called
from .imports import dotted_name
from .literals import is_cpu_literal, is_none_literal, string_value
from .methods import MethodEvaluator, keyword_value
from .syntax import all_params, keyword_argument

_PARTIAL = "functools.partial"


class LibraryEvaluator(MethodEvaluator):
    def library_result(self, called: Called) -> Value | None:
        """What a call the library tables know returns; None for any other call."""
        node, qualified, method, receiver = called.node, called.qualified, called.method, called.receiver
        requested = keyword_argument(node, libraries.RETURN_TENSORS_KEYWORD)
        if requested is not None and string_value(requested) == libraries.TORCH_TENSORS:
            origin = Origin(node, "made on the CPU by the tokenizer")  # a BatchEncoding, or ``encode``'s ids
            if method in libraries.INPUT_IDS_METHODS:
                as_dict = libraries.INPUT_IDS_METHODS[method]
                if as_dict is None or keyword_argument(node, as_dict) is None:
                    return tensor(CPU, origin)
            return Value(kind=Kind.MAPPING, item=tensor(CPU, origin), origin=origin)
        if qualified is not None:
            return self._library_function(node, qualified, called.arguments)
        if called.callee.cls in libraries.TO_TENSOR_TRANSFORMS:  # ``transform(img)``, ``ToTensor()(img)``
            return tensor(CPU, called.callee.origin)
        if method is not None and receiver is not None and called.receiver_value.kind is Kind.LOADER:
            return self._loader_method(node, method, receiver, called.receiver_value, called.arguments)
        return None

    def _library_function(self, node: cst.Call, qualified: str, arguments: tuple[Value, ...]) -> Value | None:
        loader = libraries.loader(qualified)
        if loader is not None:
            return self._loader(node, qualified, loader, arguments)
        loader = libraries.loader_splits(qualified)
        if loader is not None:  # ``train_iter, test_iter = BucketIterator.splits(..., device=d)``
            return sequence(item=self._loader(node, qualified.rpartition(".")[0], loader, arguments))
        short = qualified.rsplit(".", 1)[-1]
        if qualified in libraries.TENSOR_DATASETS:  # item ``i``: row ``i`` of each tensor, where it is
            rows = tuple(value.with_kind(Kind.TENSOR) for arg, value in zip(node.args, arguments) if not arg.keyword)
            return sequence(item=sequence(elements=rows))
        if qualified in libraries.DATASET_SUBSETS:  # the dataset's own items
            return _first_argument(node, arguments, "dataset")
        if qualified in libraries.DATASET_SPLITS:  # a list of such subsets
            return sequence(item=_first_argument(node, arguments, "dataset"))
        if qualified in libraries.IMAGE_DATASETS:
            return sequence(item=self._image_and_target(node, short, arguments))
        if qualified in libraries.TO_TENSOR_FUNCTIONS:
            return tensor(CPU, Origin(node, f"made on the CPU by {short}()"))
        if qualified in libraries.TO_TENSOR_TRANSFORMS:  # called on an image, it makes a CPU tensor
            return Value(cls=qualified, origin=Origin(node, f"made on the CPU by {short}()"))
        if qualified in libraries.COMPOSE:
            return self._composed(node, arguments)
        if libraries.keeps_transform_place(qualified):
            return Value(cls=qualified, origin=Origin(node, f"made by {short}()"))
        if qualified == _PARTIAL:  # a function with some arguments bound: what it binds is read off its call
            return Value(cls=qualified, origin=Origin(node, "bound by functools.partial"))
        if qualified in api.OPTIMIZERS:  # an optimizer, not the module its ``load_state_dict`` suggests
            return Value(kind=Kind.OBJECT, cls=qualified, origin=Origin(node, f"built by {short}()"))
        return None

    # ------------------------------------------------------------------ loaders
    def _loader(self, node: cst.Call, qualified: str, loader: Loader, arguments: tuple[Value, ...]) -> Value:
        short = qualified.rsplit(".", 1)[-1]
        places, origin = CPU, Origin(node, f"yielded by {short}")
        device = keyword_argument(node, loader.device_keyword) if loader.device_keyword is not None else None
        if device is not None and loader.device_keyword is not None:
            places = self._loader_device(device, keyword_value(node, arguments, loader.device_keyword))
        elif loader.collates_dataset and self._collates_onto_a_device(node, arguments):
            places = NOWHERE  # ``collate_fn=partial(collate, device=device)``: where that device is
        elif loader.collates_dataset:
            return self._collating_loader(node, qualified, arguments, origin)
        is_default = device is None or is_none_literal(device)
        if loader.cpu_default_since is not None and is_default:  # the CPU since that version only
            library, version = loader.cpu_default_since
            places, origin = (
                frozenset({Place(PlaceKind.CPU, guessed=True)}),
                Origin(node, f"yielded by {short} ({library} {version} and later)"),
            )
        return Value(kind=Kind.LOADER, item=_batch(loader, places, origin), cls=qualified)

    def _collates_onto_a_device(self, node: cst.Call, arguments: tuple[Value, ...]) -> bool:
        """A ``collate_fn`` given a device (``partial(collate, device=device)``), or a function of
        this file that takes one: it builds the batches there, not on the CPU."""
        collate = keyword_argument(node, "collate_fn")
        if collate is None:
            return False
        made = keyword_value(node, arguments, "collate_fn").origin
        if made is not None and type(made.node) is cst.Call and self.imports.qualify(made.node.func) == _PARTIAL:
            return any(arg.keyword is not None and "device" in arg.keyword.value for arg in made.node.args)
        function = self.definitions.top_functions.get(dotted_name(collate) or "")
        params = all_params(function.node.params) if function is not None else ()
        return any("device" in param.name.value and not _defaults_to_the_cpu(param) for param in params)

    def _collating_loader(self, node: cst.Call, qualified: str, arguments: tuple[Value, ...], origin: Origin) -> Value:
        """``DataLoader(dataset, collate_fn=...)``: batches a ``collate_fn`` of this file makes from
        the list of the dataset's items, else those ``default_collate`` stacks where the items are.
        A tuple keeps each element's place (``return x.to(device), y``: the labels stay on the CPU)."""
        items = self._items(_first_argument(node, arguments, "dataset"))
        made = self._collated(node, sequence(item=items))
        shown = _shown_places(made)
        if shown is None:  # a ``collate_fn`` that shows no tensor: the items decide
            made, shown = items, _shown_places(items)
        if made.kind is Kind.SEQUENCE and made.elements:
            parts = tuple(_collated_part(part, origin) for part in made.elements)
            return Value(kind=Kind.LOADER, item=sequence(elements=parts), cls=qualified)
        batch = Value(kind=Kind.BATCH, places=shown or CPU, origin=origin)
        return Value(kind=Kind.LOADER, item=batch, cls=qualified)

    def _collated(self, node: cst.Call, items: Value) -> Value:
        """What the loader's ``collate_fn`` returns, given ``items``, where it is a function or a
        method of this file."""
        collate = keyword_argument(node, "collate_fn")
        function, owner = None, None
        if type(collate) is cst.Attribute:  # ``collate_fn=dataset.collate_fn``
            owner = self.peek(collate.value, self.state)
            function = self.method_of(owner, collate.attr.value)
        elif collate is not None:
            function = self.definitions.top_functions.get(dotted_name(collate) or "")
        return self.called_back(function, owner, items) if function is not None else UNKNOWN

    def _items(self, dataset: Value) -> Value:
        """A dataset's items: what its ``__getitem__`` returns where its class is one of this file."""
        getter = self.method_of(dataset, "__getitem__")
        return self.called_back(getter, dataset) if getter is not None else dataset.element()

    def _loader_device(self, node: cst.BaseExpression, value: Value) -> frozenset[Place]:
        if is_none_literal(node):
            return CPU
        if type(node) in (cst.Integer, cst.UnaryOperation):  # an index: the GPU, or the CPU, by version
            return NOWHERE
        return self.device_places(node, value) or NOWHERE

    def _loader_method(
        self, node: cst.Call, method: str, receiver: cst.BaseExpression, value: Value, arguments: tuple[Value, ...]
    ) -> Value | None:
        """``loader.set_target_device(device)``: its batches are made there from now on."""
        loader = libraries.loader(value.cls or "")
        name = dotted_name(receiver)
        if loader is None or method != loader.device_method or not node.args or name is None:
            return None
        places = self._loader_device(node.args[0].value, arguments[0])
        origin = Origin(node, f"moved by .{method}()")
        self.state.bind(name, Value(kind=Kind.LOADER, item=_batch(loader, places, origin), cls=value.cls))
        return UNKNOWN

    # -------------------------------------------------------------- torchvision
    def _image_and_target(self, node: cst.Call, dataset: str, arguments: tuple[Value, ...]) -> Value:
        """``(transform(image), target)``: a CPU tensor when the transform makes one, an int target."""
        transform = keyword_value(node, arguments, libraries.TRANSFORM_KEYWORD)
        image = tensor(CPU, Origin(node, f"made on the CPU by {dataset}'s transform"))
        if transform.cls not in libraries.TO_TENSOR_TRANSFORMS:
            image = UNKNOWN  # a PIL image, or what a transform the tables do not know makes
        target = UNKNOWN if keyword_argument(node, libraries.TARGET_TRANSFORM_KEYWORD) is not None else SCALAR
        return sequence(elements=(image, target))

    def _composed(self, node: cst.Call, arguments: tuple[Value, ...]) -> Value:
        """``Compose([Resize(256), ToTensor(), Normalize(...)])``: a CPU tensor maker when a to-tensor
        step is followed only by transforms that keep the place."""
        made: Value | None = None
        for step in _first_argument(node, arguments, "transforms").elements or ():
            if step.cls in libraries.TO_TENSOR_TRANSFORMS:
                made = step
            elif not libraries.keeps_transform_place(step.cls or ""):
                made = None
        return made or UNKNOWN

    # ------------------------------------------------------------- from_pretrained
    def pretrained_places(self, node: cst.Call) -> frozenset[Place] | None:
        """Where ``from_pretrained(..., device_map=...)`` or a quantized load puts the model; None
        when neither is given (where the default device is)."""
        device_map = keyword_argument(node, libraries.DEVICE_MAP_KEYWORD)
        quantized = any(keyword_argument(node, keyword) is not None for keyword in libraries.QUANTIZATION_KEYWORDS)
        if device_map is not None and quantized:  # 8-bit weights force hooks, which move the inputs
            return CPU if is_cpu_literal(device_map) else with_module(libraries.DEVICE_MAP_KEYWORD)
        if device_map is not None:
            return self._device_map_places(device_map)
        if quantized:  # quantized onto the current GPU
            return accelerator(libraries.QUANTIZATION_KEYWORDS[0])
        return None

    def _device_map_places(self, node: cst.BaseExpression) -> frozenset[Place]:
        if type(node) is cst.Dict and len(node.elements) == 1 and type(node.elements[0]) is cst.DictElement:
            return self._device_map_places(node.elements[0].value)  # ``{"": 0}``: all of it on one device
        if is_cpu_literal(node):
            return CPU
        value = self.peek(node, self.state)
        one_device = type(node) is cst.Integer or value.kind is Kind.DEVICE
        if string_value(node) not in libraries.DEVICE_MAP_STRATEGIES and (one_device or string_value(node)):
            return self.device_places(node, value) or NOWHERE  # ``model.to(d)``, no hooks: inputs must be on d
        return with_module(libraries.DEVICE_MAP_KEYWORD)  # spread by a strategy: hooks move the inputs


def _first_argument(node: cst.Call, arguments: tuple[Value, ...], keyword: str) -> Value:
    """The value of the first parameter, named ``keyword``, whether passed by name or by position."""
    if keyword_argument(node, keyword) is not None:
        return keyword_value(node, arguments, keyword)
    if node.args and node.args[0].keyword is None and not node.args[0].star:
        return arguments[0]
    return UNKNOWN


def _batch(loader: Loader, places: frozenset[Place], origin: Origin) -> Value:
    if loader.form is BatchForm.MAPPING:
        return mapping(item=tensor(places, origin))
    return Value(kind=Kind.BATCH, places=places, origin=origin)


def _defaults_to_the_cpu(param: cst.Param) -> bool:
    """``device="cpu"``, ``device=None``: what a ``collate_fn`` passed as it is gets."""
    default = param.default
    return default is not None and (is_cpu_literal(default) or is_none_literal(default))


def _shown_places(batch: Value) -> frozenset[Place] | None:
    """Where a batch made of ``batch`` (a dataset's item, what a ``collate_fn`` returns) is, where
    the code shows tensors in it: on the CPU, unless some may be on a device
    (``TensorDataset(x.to(device))``, ``return x.to(device), y.to(device)``: what a dataset moves is
    a tensor, whatever it was) or are where the code does not show (moved by a ``map`` of a lambda).
    None where it shows no tensor."""
    parts = [value for value in _parts(batch, 3) if value.kind in TENSOR_KINDS or may_be_on_accelerator(value)]
    placed = [
        value.places
        for value in parts
        if may_be_on_accelerator(value) or (value.kind in TENSOR_KINDS and UNKNOWN_PLACE in value.places)
    ]
    return frozenset[Place]().union(*placed) if placed else CPU if parts else None


def _collated_part(part: Value, origin: Origin) -> Value:
    """One element of a tuple batch: a tensor where the element is shown to be one or is moved,
    else what ``default_collate`` makes of it on the CPU (a tensor, or a list of strings)."""
    places = _shown_places(part)
    if places is None:
        return Value(kind=Kind.BATCH, places=CPU, origin=origin)
    return tensor(places, origin)


def _parts(value: Value, depth: int) -> Iterator[Value]:
    """The tensors, and the values of unknown kind, a batch is made of."""
    if value.kind in TENSOR_KINDS or value.kind is Kind.UNKNOWN:
        yield value
    elif depth > 0:
        for part in (*(value.elements or ()), *((value.item,) if value.item is not None else ())):
            yield from _parts(part, depth - 1)
