"""The library tables (knowledge/libraries.py): each fact cites the version it was read from, and
with them the rules find a batch from such a library left on the CPU. The programs here import
torchvision, torchtext, AllenNLP and transformers, which the fixtures may not (they must run with
torch alone): they are linted, never run. ``# expect: TDV00N`` marks each line that must be
reported, as in the fixtures; a program without one must be reported nowhere."""

from __future__ import annotations

import re
from dataclasses import fields

import pytest

from flake8_torchdevice.confidence import Confidence
from flake8_torchdevice.engine import check_source
from flake8_torchdevice.knowledge import libraries
from flake8_torchdevice.settings import Settings

_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>TDV\d{3}(?:\s*,\s*TDV\d{3})*)")
# Only the rules about batches meeting moved models and tensors: hard-coded devices are TDV001's.
_CODES = ("TDV005", "TDV006")


def _entries() -> list[tuple[str, libraries.Read]]:
    found: list[tuple[str, libraries.Read]] = [(name, loader.read) for name, loader in libraries.LOADERS.items()]
    for table in (
        libraries.TENSOR_DATASETS,
        libraries.IMAGE_DATASETS,
        libraries.TO_TENSOR_TRANSFORMS,
        libraries.TO_TENSOR_FUNCTIONS,
        libraries.COMPOSE,
        libraries.MODULE_BASES,
        libraries.MODEL_FACTORIES,
    ):
        found.extend(table.items())
    found.extend((name, method.read) for name, method in libraries.MODEL_METHODS.items())
    found.extend(
        (name, read)
        for name, read in (
            ("tokenizer", libraries.TOKENIZER),
            ("from_pretrained", libraries.PRETRAINED),
            ("device_map", libraries.DEVICE_MAP),
            ("module device=", libraries.MODULE_DEVICE),
        )
    )
    return found


@pytest.mark.parametrize(("name", "read"), _entries(), ids=lambda entry: str(entry))
def test_every_fact_names_the_library_version_and_file_it_was_read_from(name: str, read: libraries.Read) -> None:
    assert all(getattr(read, field.name) for field in fields(read)), f"{name}: {read}"
    assert re.match(r"\d+\.\d+|legacy \(repository commit [0-9a-f]{7}\)", read.version), f"{name}: {read.version}"
    top = name.split(".")[0]
    if "." in name:  # a qualified name lives in the library it cites
        assert top == read.library, f"{name} cites {read.library}"


def _findings(source: str) -> set[tuple[int, str]]:
    checked = check_source(source, Settings(confidence=Confidence.MEDIUM))
    return {(d.line, d.code) for d in checked.diagnostics if d.code in _CODES}


def _expected(source: str) -> set[tuple[int, str]]:
    expected = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = _EXPECT.search(line)
        if match:
            expected.update((number, code.strip()) for code in match["codes"].split(","))
    return expected


PROGRAMS = {
    "tokenizer_into_model_loaded_on_the_gpu": """
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2", device_map="cuda")
inputs = tokenizer("Hello", return_tensors="pt")
completion = model.generate(**inputs)  # expect: TDV006
ids = tokenizer.encode("Hello", return_tensors="pt")
logits = model(ids).logits  # expect: TDV006
chat = tokenizer.apply_chat_template([{"role": "user", "content": "Hi"}], return_tensors="pt")
reply = model.generate(chat, max_new_tokens=8)  # expect: TDV006
""",
    "tokenizer_output_moved_to_the_model": """
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2", device_map="cuda")
inputs = tokenizer("Hello", return_tensors="pt").to(model.device)
completion = model.generate(**inputs)
encoded = tokenizer("Hello", return_tensors="pt")
encoded.to("cuda")  # a BatchEncoding moves in place
completion = model.generate(**encoded)
chat = tokenizer.apply_chat_template([{"role": "user", "content": "Hi"}], return_tensors="pt").to(model.device)
reply = model.generate(chat, max_new_tokens=8)
""",
    "model_spread_by_device_map_auto": """
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2", device_map="auto")
completion = model.generate(**tokenizer("Hello", return_tensors="pt"))
""",
    "torchtext_batches_on_the_cpu": """
import torch
import torch.nn as nn
from torchtext.legacy.data import BucketIterator

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(100, 2).to(device)
train_iter, valid_iter = BucketIterator.splits((train, valid), batch_size=32)
for batch in train_iter:
    logits = model(batch.text)  # expect: TDV006
    loss = nn.functional.cross_entropy(logits, batch.label)  # expect: TDV005
""",
    "torchtext_iterator_built_on_the_device": """
import torch
import torch.nn as nn
from torchtext.legacy.data import BucketIterator

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(100, 2).to(device)
train_iter, valid_iter = BucketIterator.splits((train, valid), batch_size=32, device=device)
for batch in train_iter:
    logits = model(batch.text)
    loss = nn.functional.cross_entropy(logits, batch.label)
""",
    "allennlp_batches_without_a_device": """
import torch
from allennlp.data.data_loaders import MultiProcessDataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
classifier = torch.nn.Linear(16, 2).to(device)
loader = MultiProcessDataLoader(reader, "train.jsonl", batch_size=8)
for batch in loader:
    scores = classifier(**batch)  # expect: TDV006
""",
    "allennlp_loader_given_the_device": """
import torch
from allennlp.data.data_loaders import MultiProcessDataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
classifier = torch.nn.Linear(16, 2).to(device)
loader = MultiProcessDataLoader(reader, "train.jsonl", batch_size=8)
loader.set_target_device(device)
for batch in loader:
    scores = classifier(**batch)
other = MultiProcessDataLoader(reader, "dev.jsonl", batch_size=8, cuda_device=device)
for batch in other:
    scores = classifier(**batch)
""",
    "torchvision_image_left_on_the_cpu": """
import torch
import torch.nn as nn
from torchvision import datasets, transforms

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10)).to(device)
preprocess = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
test_set = datasets.MNIST("data", train=False, transform=preprocess)
image, label = test_set[0]
prediction = model(image.unsqueeze(0)).argmax()  # expect: TDV006
template = torch.ones(1, 28, 28, device=device)
distance = (template - image).abs().sum()  # expect: TDV005
upload = preprocess(picture)
scores = model(upload.unsqueeze(0))  # expect: TDV006
""",
    "torchvision_image_moved": """
import torch
import torch.nn as nn
from torchvision import datasets, transforms

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10)).to(device)
preprocess = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
test_set = datasets.MNIST("data", train=False, transform=preprocess)
image, label = test_set[0]
image = image.to(device)
prediction = model(image.unsqueeze(0)).argmax()
correct = prediction.item() == label
scores = model(preprocess(picture).unsqueeze(0).to(device))
on_device = transforms.Compose([transforms.ToTensor(), transforms.Lambda(lambda x: x.to(device))])
scores = model(on_device(picture).unsqueeze(0))
""",
    "dataset_of_device_tensors": """
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
features = torch.randn(64, 4, device=device)
targets = torch.randn(64, 2, device=device)
for inputs, expected in DataLoader(TensorDataset(features, targets), batch_size=16):
    loss = (model(inputs) - expected).pow(2).mean()
""",
    "dataset_of_host_tensors": """
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
for inputs, expected in DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 2)), batch_size=16):
    outputs = model(inputs.to(device))
    loss = (outputs - expected).pow(2).mean()  # expect: TDV005
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_batches_of_the_libraries_meet_moved_models_and_tensors(name: str) -> None:
    source = PROGRAMS[name].lstrip()
    assert _findings(source) == _expected(source)


@pytest.mark.parametrize(
    ("module", "grade"),
    [("torchtext.legacy.data", "high"), ("torchtext.data", "medium")],
)
def test_torchtext_batches_without_a_device_are_sure_only_where_the_version_is(module: str, grade: str) -> None:
    # torchtext 0.2 made them on the current GPU (device=None); 0.3 made None the CPU. The legacy
    # module exists from 0.9 on, so its batches are on the CPU; torchtext.data may be either.
    source = PROGRAMS["torchtext_batches_on_the_cpu"].lstrip().replace("torchtext.legacy.data", module)
    checked = check_source(source, Settings(confidence=Confidence.LOW))
    assert {finding.confidence for finding in checked.diagnostics} == {grade}
