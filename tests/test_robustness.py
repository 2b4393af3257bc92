"""The linter never crashes, never lies about positions, never damages a file.

Any text goes in: random valid programs (hypothesmith), programs built from PyTorch snippets,
random bytes, truncated and mutated fixtures, and a list of explicit hard cases. The engine and
the flake8 plugin class always return diagnostics (at worst one TDV900 at line 1) and never raise;
an analysis bug the engine swallowed ("internal error") fails the test just as a raise would.
Valid programs additionally get exact positions and a fix that damages nothing.

The hypothesis budget comes from the profiles registered in conftest.py ("dev" locally, "ci"
when the CI environment variable is set).
"""

from __future__ import annotations

import ast
import keyword
import os
import subprocess
import sys
import textwrap
import time

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, example, given, note, settings
from hypothesis import strategies as st
from robustness_support import (
    NEWLINE,
    fix_errors,
    fixture_paths,
    position_errors,
    python_parses,
    read_source,
    source_lines,
)

from flake8_torchdevice.engine import Diagnostic, check_source, lint_source
from flake8_torchdevice.fixes import fix_source
from flake8_torchdevice.plugin import TorchDeviceChecker
from flake8_torchdevice.settings import Settings

# Generated programs like ``3(x)`` are valid syntax that Python warns about while compiling them.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

SLOW_GENERATION = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
SETTINGS = [
    Settings(),
    Settings(guard_functions=frozenset({"has_gpu", "is_torch_cuda_available"}), report_unknown_receivers=True),
]
FIXTURE_SOURCES = [read_source(path) for path in fixture_paths()]


# --- the invariants ------------------------------------------------------------------------------


def plugin_lines(source: str) -> list[str]:
    return source.splitlines(keepends=True)


def lint_everywhere(source: str, lint_settings: Settings = Settings()) -> list[Diagnostic]:
    """Lint through the engine and the flake8 plugin class; check what any input must satisfy."""
    diagnostics = lint_source(source, lint_settings)
    assert isinstance(diagnostics, list)
    assert all(isinstance(d, Diagnostic) for d in diagnostics)
    TorchDeviceChecker.settings = lint_settings
    try:
        from_plugin = list(TorchDeviceChecker(None, plugin_lines(source)).run())
    finally:
        TorchDeviceChecker.settings = Settings()
    assert from_plugin == [(d.line, d.column, d.flake8_text(), TorchDeviceChecker) for d in diagnostics]
    internal = [d.message for d in diagnostics if "internal error" in d.message]
    assert not internal, f"the analysis crashed (swallowed by the engine): {internal}"
    unanalysable = [d for d in diagnostics if d.code == "TDV900"]
    if unanalysable:
        assert diagnostics == unanalysable and len(unanalysable) == 1
        assert (unanalysable[0].line, unanalysable[0].column) == (1, 0)
    lines = source_lines(source)
    for diagnostic in diagnostics:
        assert 1 <= diagnostic.line <= len(lines), diagnostic
        assert 0 <= diagnostic.column <= len(lines[diagnostic.line - 1]), diagnostic
    return diagnostics


def check_valid_program(source: str, lint_settings: Settings = Settings()) -> None:
    """A program libcst parses: analysed (no TDV900), exact positions, a fix that damages nothing."""
    note(source)
    diagnostics = lint_everywhere(source, lint_settings)
    if any(d.code == "TDV900" for d in diagnostics):
        (diagnostic,) = diagnostics
        try:
            cst.parse_module(source)
        except Exception:
            return
        assert "nested" in diagnostic.message, diagnostic  # a depth limit, never a parse failure
        return
    checked = check_source(source, lint_settings)
    assert position_errors(source, checked) == []
    assert fix_errors(source, lint_settings) == []


# --- strategies ----------------------------------------------------------------------------------

IDENTIFIERS = st.one_of(
    st.sampled_from(
        [
            "x",
            "y",
            "t",
            "model",
            "net",
            "device",
            "dev",
            "batch",
            "out",
            "data",
            "cuda",
            "use_cuda",
            "gpu",
            "loss",
            "np",
            "nn",
            "th",
            "self",
            "é",
            "数据",
            "match",
            "case",
            "type",
            "_",
        ]
    ),
    st.from_regex(r"\A[a-z_][a-z0-9_]{0,6}\Z").filter(lambda name: not keyword.iskeyword(name)),
)
LEAVES = st.one_of(
    IDENTIFIERS,
    st.sampled_from(
        [
            '"cuda"',
            "'cuda:0'",
            '"cpu"',
            '"mps"',
            "device",
            "0",
            "3",
            "1.5",
            "None",
            "True",
            "...",
            "torch.device('cuda')",
            "torch.device(device)",
            "torch.cuda.current_device()",
            'f"cuda:{rank}"',
            "torch.float16",
            "args.device",
            "self.device",
            "x.device",
            "torch.zeros(3)",
            "torch.randn(2, 3)",
            "nn.Linear(3, 3)",
            "model(x)",
            "torch.load('m.pt')",
            "batch[0]",
            "'naïve 中文 🔥'",
            "[1, 2]",
        ]
    ),
)


def receiver(text: str) -> str:
    """Parenthesise an expression unless it can take ``.attr`` as it is (``3.to`` is a float)."""
    try:
        node = cst.parse_expression(text)
    except Exception:
        return f"({text})"
    simple = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.SimpleString, cst.List)
    return text if isinstance(node, simple) or node.lpar else f"({text})"


def operand(text: str) -> str:
    """Parenthesise an expression unless it is an atom (``x + not y`` is a syntax error)."""
    try:
        node = cst.parse_expression(text)
    except Exception:
        return f"({text})"
    atoms = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.BaseString, cst.List, cst.Integer,
             cst.Float, cst.Ellipsis, cst.BaseComp, cst.Dict)  # fmt: skip
    return text if isinstance(node, atoms) or node.lpar else f"({text})"


def f_string(text: str) -> str:
    if sys.version_info >= (3, 12):
        return f'f"{{ {text} }} and {{ {text}!r:>10}}"'
    # Before PEP 701 a replacement field cannot hold the f-string's quote, a backslash, a comment
    # or a line break. Single quotes outside: a double-quoted f-string around torch.load() would
    # only rediscover KNOWN_FIX_BREAKAGES (fixes insert "cpu" with double quotes).
    if any(c in text for c in "'\\#\n\r"):
        return f"str({text})"
    return f"f'{{ {text} }} and {{ {text}!r:>10}}'"


METHODS = ["to", "cuda", "cpu", "numpy", "detach", "item", "half", "float", "type"]
FACTORIES = ["zeros", "ones", "empty", "arange"]
OPERATORS = ["+", "*", "@", "==", "-", "and"]
EXPRESSION_SHAPES = [
    lambda d, e: f"{receiver(e())}.{d(st.sampled_from(METHODS))}({d(st.sampled_from(['', e()]))})",
    lambda d, e: f"{receiver(e())}.cpu().numpy()",
    lambda d, e: f"{receiver(e())}.to(device={e()}, non_blocking=True)",
    lambda d, e: f"{receiver(e())}.{d(IDENTIFIERS)}",
    lambda d, e: f"torch.{d(st.sampled_from(FACTORIES))}(3, device={e()})",
    lambda d, e: f"torch.tensor([1, 2]).to({e()})",
    lambda d, e: f"torch.load({e()}, map_location={e()})",
    lambda d, e: f"{receiver(e())}.load_state_dict(torch.load({e()}))",
    lambda d, e: f"{d(IDENTIFIERS)}({e()})",
    lambda d, e: f"{receiver(e())}({e()}, key={e()})",
    lambda d, e: f"{operand(e())} {d(st.sampled_from(OPERATORS))} {operand(e())}",
    lambda d, e: f"{receiver(e())}[{e()}]",
    lambda d, e: f"({e()})",
    lambda d, e: f"(\n    {e()}  # é\n)",
    lambda d, e: f"[\n    {e()},  # é\n][0]",
    lambda d, e: f"not {e()}",
    lambda d, e: f"(lambda {d(IDENTIFIERS)}: {e()})",
    lambda d, e: f"[{e()} for {d(IDENTIFIERS)} in ({e()})]",
    lambda d, e: f"{{({e()}): {e()} for {d(IDENTIFIERS)} in ({e()})}}",
    lambda d, e: f"({e()} if {e()} else {e()})",
    lambda d, e: f"({d(IDENTIFIERS)} := {e()})",
    lambda d, e: f"torch.cat([{e()}, {e()}])",
    lambda d, e: f_string(e()),
]


@st.composite
def expressions(draw, depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(LEAVES)
    shape = draw(st.sampled_from(EXPRESSION_SHAPES))
    return shape(draw, lambda: draw(expressions(depth - 1)))


SIMPLE_SHAPES = [
    lambda d: f"{d(IDENTIFIERS)} = {d(expressions())}",
    lambda d: f"{d(IDENTIFIERS)}: torch.Tensor = {d(expressions())}",
    lambda d: f"{d(IDENTIFIERS)} += {d(expressions())}",
    lambda d: "{0}, {1} = {1}, {0}".format(d(IDENTIFIERS), d(IDENTIFIERS)),
    lambda d: f"{receiver(d(expressions()))}.to({d(expressions())})",
    lambda d: d(expressions()),
    lambda d: f"return {d(expressions())}",
    lambda d: f"assert {d(expressions())}",
    lambda d: f"del {d(IDENTIFIERS)}",
    lambda d: f"global {d(IDENTIFIERS)}",
    lambda d: f"{d(expressions())}; {d(expressions())}",
    lambda d: d(
        st.sampled_from(
            ["import torch", "import torch as th", "from torch import nn, cuda", "import torch.nn as nn",
             "from torch.cuda import is_available", "import numpy as np", "pass", "break", "continue",
             'x = torch.zeros(3, device="cuda")', "y = x.numpy()", "model.to(device)", "x.to(device)",
             "torch.cuda.synchronize()", "torch.set_default_device('cuda')", 'device = "cuda"',
             "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')", "yield x",
             "out = model(x.cpu())", "loss.backward()", "optimizer.step()", "raise RuntimeError('cuda')"]
        )
    ),
]  # fmt: skip
FIXED_HEADERS = [
    "if torch.cuda.is_available():", "if not torch.cuda.is_available():", "if use_cuda:",
    "if x.is_cuda:", 'if device.type == "cuda":', "with torch.no_grad():", "while True:",
    "for x, y in loader:", "class Net(nn.Module):", "class C:", "def forward(self, x):",
    "async def run(x, *args, device='cuda', **kwargs):", "@torch.no_grad()\ndef predict(model, x):",
    '@pytest.mark.skipif(not torch.cuda.is_available(), reason="gpu")\ndef test_gpu():',
    "else:", "try:",
]  # fmt: skip
if sys.version_info >= (3, 12):
    FIXED_HEADERS += ["def f[T](x: T) -> T:", "class Box[T: torch.Tensor]:"]
PARAMETERS = ["", "x", "x: torch.Tensor", "model, x=None, /, *, dev='cuda'"]
HEADER_SHAPES = [
    lambda d: d(st.sampled_from(FIXED_HEADERS)),
    lambda d: f"if {d(expressions())}:",
    lambda d: f"for {d(IDENTIFIERS)} in {d(expressions())}:",
    lambda d: f"with {d(expressions())} as {d(IDENTIFIERS)}:",
    lambda d: f"def {d(IDENTIFIERS)}({d(st.sampled_from(PARAMETERS))}):",
    lambda d: f"class {d(IDENTIFIERS)}({d(st.sampled_from(['', 'nn.Module', 'torch.nn.Module, metaclass=M']))}):",
]


@st.composite
def statements(draw, depth: int = 2):
    """("simple", text), ("block", header, [statements]) or ("match", subject, [statements])."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return ("simple", draw(st.sampled_from(SIMPLE_SHAPES))(draw))
    body = draw(st.lists(statements(depth - 1), min_size=1, max_size=3))
    if draw(st.integers(0, 9)) == 0:
        return ("match", draw(expressions()), body)
    return ("block", draw(st.sampled_from(HEADER_SHAPES))(draw), body)


def render(statement, indent: str, level: int = 0) -> list[str]:
    pad = indent * level
    kind = statement[0]
    if kind == "simple":
        return [pad + statement[1]]
    if kind == "match":
        lines = [f"{pad}match {statement[1]}:", f"{pad}{indent}case [x, *rest] if x:"]
        lines += [line for child in statement[2] for line in render(child, indent, level + 2)]
        lines += [f"{pad}{indent}case _:", f"{pad}{indent * 2}pass"]
        return lines
    _, header, body = statement
    inner = [line for child in body for line in render(child, indent, level + 1)]
    if header in ("else:", "try:"):  # needs a partner clause
        opener = "if torch.cuda.is_available():" if header == "else:" else "try:"
        closer = "else:" if header == "else:" else "except (RuntimeError, AssertionError) as error:"
        return [pad + opener, *inner, pad + closer, *inner]
    return [pad + part for part in header.split("\n")] + inner


@st.composite
def torch_programs(draw) -> str:
    indent = draw(st.sampled_from(["    ", "  ", "\t"]))
    preamble = draw(
        st.sampled_from(
            ["import torch\n", "import torch\nimport torch.nn as nn\n", "from torch import nn\n# torch\n", ""]
        )
    )
    body = draw(st.lists(statements(), min_size=1, max_size=6))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    lines = preamble.splitlines() + [line for statement in body for line in render(statement, indent)]
    return newline.join(lines) + draw(st.sampled_from([newline, ""]))


@st.composite
def damaged_fixtures(draw) -> str:
    """A fixture cut short, or with a slice deleted, duplicated or replaced by random text."""
    source = draw(st.sampled_from(FIXTURE_SOURCES))
    start = draw(st.integers(0, len(source)))
    end = draw(st.integers(start, min(len(source), start + 80)))
    how = draw(st.sampled_from(["truncate", "delete", "duplicate", "replace"]))
    if how == "truncate":
        return source[:start]
    if how == "delete":
        return source[:start] + source[end:]
    if how == "duplicate":
        return source[:end] + source[start:end] + source[end:]
    pieces = [*list("()[]{}:.,=\"'#\\\n\r\t\x0c\x00 é中🔥"), "cuda", "\n    ", "torch", "lambda", "yield"]
    noise = "".join(draw(st.lists(st.sampled_from(pieces), max_size=10)))
    return source[:start] + noise + source[end:]


def decoded(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


# --- properties ----------------------------------------------------------------------------------


@settings(suppress_health_check=SLOW_GENERATION)
@given(torch_programs(), st.sampled_from(SETTINGS))
def test_torch_programs_are_analysed_exactly(program, lint_settings):
    assert python_parses(program)  # the generator writes valid Python
    check_valid_program(program, lint_settings)


@settings(suppress_health_check=SLOW_GENERATION)
@given(
    hypothesmith.from_grammar(),
    st.sampled_from(["import torch\n", "import torch as cuda\nfrom torch import nn\n"]),
)
def test_random_grammar_programs(program, preamble):
    check_valid_program(preamble + program)


# hypothesmith builds these through libcst node strategies: about 0.7 s an example, so a fifth of
# the profile's budget.
@settings(suppress_health_check=SLOW_GENERATION, max_examples=max(10, settings().max_examples // 5))
@given(hypothesmith.from_node(), st.sampled_from(["import torch\n", "from torch import cuda\n"]))
def test_random_libcst_programs(program, preamble):
    check_valid_program(preamble + program)


@settings(suppress_health_check=SLOW_GENERATION)
@given(st.binary(max_size=400), st.sampled_from([b"", b"import torch\n", b"\xef\xbb\xbfimport torch\r\n"]))
def test_random_bytes(data, prefix):
    lint_everywhere(decoded(prefix + data))


@settings(suppress_health_check=SLOW_GENERATION)
@given(st.text(max_size=300), st.sampled_from(["", "torch ", "import torch\n"]))
def test_random_text(text, prefix):
    lint_everywhere(prefix + text)


@settings(suppress_health_check=SLOW_GENERATION)
@given(damaged_fixtures(), st.sampled_from(SETTINGS))
def test_damaged_fixtures(source, lint_settings):
    note(source)
    lint_everywhere(decoded(source.encode("utf-8", errors="surrogatepass")), lint_settings)


@pytest.mark.parametrize("cut", [0.1, 0.25, 0.5, 0.75, 0.9, 0.99])
def test_every_fixture_truncated(cut):
    for source in FIXTURE_SOURCES:
        lint_everywhere(source[: int(len(source) * cut)])
        lint_everywhere(decoded(source.encode("utf-8")[: int(len(source) * cut)]))


# --- autofix safety on the fixtures --------------------------------------------------------------
# (Every corpus file with findings gets the same check in test_corpus_scan.)

FIXTURE_IDS = [f"{path.parent.name}/{path.name}" for path in fixture_paths()]


@pytest.mark.parametrize("source", FIXTURE_SOURCES, ids=FIXTURE_IDS)
def test_fixing_a_fixture_damages_nothing(source):
    """Parses, idempotent, same line endings, and only lines of findings change (LF and CRLF)."""
    for text in (source, NEWLINE.sub("\r\n", source)):
        for lint_settings in SETTINGS:
            assert fix_errors(text, lint_settings) == []


def test_the_fixture_fixes_really_change_something():
    assert sum(fix_source(source, unsafe=True).applied for source in FIXTURE_SOURCES) > 20


# --- explicit hard cases -------------------------------------------------------------------------

CUDA_LINE = 'x = torch.zeros(3, device="cuda")'
HARD_CASES = {
    "syntax error": "import torch\ndef f(:\n",
    "unclosed bracket": "import torch\nx = torch.zeros(3,\n",
    "bad indentation": "import torch\nif x:\npass\n",
    "inconsistent tabs": "import torch\nif x:\n\tpass\n        pass\n",
    "null byte": "import torch\nx = 1\x00\n",
    "null byte in string": "import torch\nx = '\x00'\n",
    "lone surrogate": "import torch\nx = '\ud800'\n",
    "replacement characters": "import torch\n\ufffd\ufffd = 1\n",
    "bom": f"\ufeffimport torch\n{CUDA_LINE}\n",
    "bom only": "\ufeff# torch",
    "crlf": f"import torch\r\n{CUDA_LINE}\r\n",
    "mixed endings": f"import torch\r\ny = 1\r{CUDA_LINE}\nz = 2\r\n",
    "lone cr": f"import torch\r{CUDA_LINE}\r",
    "tabs": f"import torch\nif y:\n\t{CUDA_LINE}\n\tif z:\n\t\t{CUDA_LINE}\n",
    "form feeds": f"import torch\n\x0c\n{CUDA_LINE}\x0c\nif y:\n\x0c    {CUDA_LINE}\n",
    "vertical tab": f"import torch\n\x0b{CUDA_LINE}\n",
    "unicode line separator": f"import torch\ns = '\u2028'\n{CUDA_LINE}\n",
    "backslash at eof": "import torch\nx = 1 \\",
    "only a comment": "# torch",
    "only whitespace": "torch" + " \t\x0c\n" * 5,
    "empty after prefix": "torch",
    "no final newline": f"import torch\n{CUDA_LINE}",
    "deep indentation": (
        "import torch\n" + "".join(" " * i + "if x:\n" for i in range(90)) + " " * 90 + CUDA_LINE + "\n"
    ),
    "pep 695 generics": (
        "import torch\ndef f[T](x: T) -> T:\n    return x.to('cuda')\nclass Box[T: torch.Tensor]:\n    pass\n"
    ),
    "pep 695 type alias": "import torch\ntype Device = str\ntype Pair[T] = tuple[T, T]\n",
    "pep 696 defaults": "import torch\ndef f[T = int, *Ts, **P](): pass\n",
    "pep 701 f-strings": (
        'import torch\nd = {"a": "cuda"}\nx = f"{d["a"]} {f"{f"{1}"}"}"\nt = torch.zeros(3, device=f"{d["a"]}")\n'
    ),
    "f-string with comment": "import torch\nx = f'{1 # c\n}'\n",
    "f-string format spec": "import torch\nx = f'{x!r:>{width}} {y=}'\n",
    "match statement": (
        f"import torch\nmatch x:\n    case [1, *rest] if rest:\n        {CUDA_LINE}\n"
        "    case {'a': b, **kw}:\n        pass\n    case Point(x=0) | None:\n        pass\n    case _:\n        pass\n"
    ),
    "except star": (
        "import torch\ntry:\n    pass\nexcept* (ValueError, RuntimeError) as group:\n    torch.cuda.synchronize()\n"
    ),
    "parenthesised with": "import torch\nwith (open(a) as f, torch.cuda.device(0),):\n    pass\n",
    "walrus and lambda": "import torch\nif (d := 'cuda'):\n    f = lambda t=torch.zeros(3, device=d): t.numpy()\n",
    "async comprehension": "import torch\nasync def f():\n    return [await x.cuda() async for x in y]\n",
    "decorators": "import torch\n@torch.no_grad()\n@(lambda f: f)\ndef f(x):\n    return x.cuda().numpy()\n",
    "star expressions": "import torch\na, *b = torch.zeros(3).cuda(), *c\nprint(*a, **{'device': 'cuda'})\n",
    "global nonlocal": (
        "import torch\ndef f():\n    x = 1\n    def g():\n"
        "        nonlocal x\n        global device\n        device = 'cuda'\n"
    ),
    "annotated parenthesised target": "import torch\n(x): int = 1\n",
    "annotated parenthesised attribute": "import torch\n(x.y): int = 1\n",
    "return outside function": "import torch\nreturn torch.zeros(3).cuda()\n",
    "keywords as attributes": "import torch\nx.match.case.type = torch.device.cuda\n",
    "attribute of a number": "import torch\nx = 3 .real.to('cuda')\n",
    "semicolons": f"import torch; {CUDA_LINE}; {CUDA_LINE};\n",
    "self-referencing names": "import torch\nx = x\nx = x.to(x)\nx.to(x)\n",
    "shadowed torch": "import torch\ntorch = torch.cuda\ntorch.zeros(3).to('cuda')\ndef torch(): pass\n",
    "class attribute shadowing": (
        "import torch\nclass nn:\n    Module = object\nclass M(nn.Module):\n    def forward(self, x):\n"
        "        return x.cuda()\n"
    ),
    "recursion in values": "import torch\na = b\nb = a\na.to(b)\nb.cuda().numpy()\n",
    "huge integer": "import torch\nx = torch.zeros(" + "9" * 5000 + ", device='cuda')\n",
    "deeply nested data": "import torch\nx = " + "[" * 90 + "1" + "]" * 90 + "\n",
}  # fmt: skip
PYTHON_312_ONLY = {"pep 695 generics", "pep 695 type alias", "pep 701 f-strings", "f-string with comment"}
PYTHON_313_ONLY = {"pep 696 defaults"}


@pytest.mark.parametrize("name", HARD_CASES)
def test_hard_cases_never_raise(name):
    source = HARD_CASES[name]
    for lint_settings in SETTINGS:
        lint_everywhere(source, lint_settings)
    try:
        cst.parse_module(source)
    except Exception:
        return
    checked = check_source(source)
    assert position_errors(source, checked) == []
    assert fix_errors(source) == []


@pytest.mark.parametrize(
    "name",
    ["pep 695 generics", "pep 695 type alias", "pep 701 f-strings", "match statement", "except star",
     "parenthesised with", "walrus and lambda", "async comprehension", "f-string format spec", "tabs",
     "form feeds", "crlf", "mixed endings", "bom", "no final newline", "deep indentation"],
)  # fmt: skip
def test_modern_and_unusual_syntax_is_analysed(name):
    """Valid code libcst can parse must be analysed: no TDV900 escape hatch."""
    assert [d for d in lint_source(HARD_CASES[name]) if d.code == "TDV900"] == []


@pytest.mark.parametrize(
    "name",
    ["tabs", "form feeds", "crlf", "mixed endings", "bom", "lone cr", "deep indentation", "match statement"],
)
def test_unusual_layout_still_reports_the_cuda_lines(name):
    source = HARD_CASES[name]
    reported = [d for d in lint_source(source) if d.code == "TDV001"]
    assert len(reported) == source.count(CUDA_LINE), reported
    lines = source_lines(source)
    for diagnostic in reported:
        line = lines[diagnostic.line - 1]
        assert line.startswith('"cuda"', diagnostic.column), line


# Valid Python (ast.parse and flake8 accept it) that libcst cannot parse: exactly one TDV900, at 1:1.
LIBCST_REJECTS = {
    "parenthesised annotated name": "import torch\n(x): int = 1\n",
    "parenthesised annotated attribute": "import torch\n(self.device): str = 'cuda'\n",
    "followed by code": "import torch\n(x): int = 1\n" + CUDA_LINE + "\n",
    "followed by blank lines": "import torch\n(x): int = 1\n\n\n\nprint(1)\n",
}


@pytest.mark.parametrize("name", LIBCST_REJECTS)
def test_valid_python_that_libcst_rejects_is_one_tdv900(name, tmp_path):
    source = LIBCST_REJECTS[name]
    ast.parse(source)
    with pytest.raises(Exception):  # noqa: B017  (libcst raises several types; any will do)
        cst.parse_module(source)
    (diagnostic,) = lint_everywhere(source)
    assert (diagnostic.line, diagnostic.column, diagnostic.code) == (1, 0, "TDV900")
    path = tmp_path / "rejected.py"
    path.write_text(source, encoding="utf-8")
    assert run_flake8(path) == [f"{path}:1:1: TDV900"]


def run_flake8(*paths, select="TDV,E999") -> list[str]:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "flake8",
            "--isolated",
            "--torchdevice-confidence=low",
            f"--select={select}",
            *map(str, paths),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.stderr
    return [" ".join(line.split()[:2]) for line in result.stdout.splitlines()]


def test_hard_cases_through_flake8(tmp_path):
    """Every hard case as a real file: flake8 exits normally, no traceback, TDV900 only at 1:1."""
    paths = {}
    for index, (_name, source) in enumerate(HARD_CASES.items()):
        path = tmp_path / f"case_{index:02d}.py"
        path.write_bytes(source.encode("utf-8", errors="surrogatepass"))
        paths[str(path)] = source
    for line in run_flake8(*paths):
        if line.endswith("TDV900"):
            assert line.endswith(":1:1: TDV900"), line


def test_latin1_coding_cookie_through_flake8(tmp_path):
    path = tmp_path / "latin.py"
    source = "# -*- coding: latin-1 -*-\nimport torch\ns = 'café ñ'; " + CUDA_LINE + "\n"
    path.write_bytes(source.encode("latin-1"))
    column = len("s = 'café ñ'; x = torch.zeros(3, device=") + 1
    assert run_flake8(path) == [f"{path}:3:{column}: TDV001"]
    assert [(d.line, d.column + 1) for d in lint_source(source)] == [(3, column)]


def test_utf8_bom_through_flake8(tmp_path):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + (CUDA_LINE + "  # torch\n").encode())
    assert run_flake8(path) == [f"{path}:1:27: TDV001"]


def test_null_byte_through_flake8(tmp_path):
    path = tmp_path / "null.py"
    path.write_bytes(b"import torch\nx = 1\x00\n")
    assert all("TDV" not in line or line.endswith(":1:1: TDV900") for line in run_flake8(path))


@pytest.mark.skipif(sys.version_info < (3, 12), reason="flake8 parses with the running Python")
def test_python_312_syntax_through_flake8(tmp_path):
    for name in sorted(PYTHON_312_ONLY):
        (tmp_path / f"{name.replace(' ', '_')}.py").write_text(HARD_CASES[name], encoding="utf-8")
    assert not any("TDV900" in line or "E999" in line for line in run_flake8(tmp_path))


# --- size and depth ------------------------------------------------------------------------------
# Safety bounds, not benchmarks: each is several times what it takes on a laptop.


def timed_lint(source: str, bound: float) -> list[Diagnostic]:
    start = time.perf_counter()
    diagnostics = lint_everywhere(source)
    elapsed = time.perf_counter() - start
    assert elapsed < bound, f"{elapsed:.1f}s"
    return diagnostics


def test_fifty_thousand_lines():
    body = ["import torch", CUDA_LINE] + ["y = y + 1"] * 24_998 + [CUDA_LINE] + ["z = 2"] * 24_998 + [CUDA_LINE]
    diagnostics = timed_lint("\n".join(body) + "\n", bound=120)
    assert [(d.line, d.code) for d in diagnostics] == [(2, "TDV001"), (25_001, "TDV001"), (50_000, "TDV001")]
    assert {d.column for d in diagnostics} == {len("x = torch.zeros(3, device=")}


def test_five_thousand_character_line():
    line = "x = [" + ", ".join(["1"] * 2_000) + '] + [torch.zeros(3, device="cuda")]'
    assert len(line) > 5_000
    (diagnostic,) = timed_lint("import torch\n" + line + "\n", bound=30)
    assert diagnostic.column == line.index('"cuda"')


def test_five_hundred_nested_parentheses():
    source = "import torch\nx = " + "(" * 500 + 'torch.zeros(3, device="cuda")' + ")" * 500 + "\n"
    (diagnostic,) = timed_lint(source, bound=60)
    assert (diagnostic.line, diagnostic.column, diagnostic.code) == (1, 0, "TDV900")
    assert "brackets nested deeper than 200 levels" in diagnostic.message


# Python 3.12 caps nested C calls at 1,500 whatever the recursion limit, and libcst's code
# generation (which the messages use) nests a generator-based context manager per operand: there
# the 1,000-term sum is one TDV900. 3.11 and 3.13 analyse it.
THOUSAND_TERMS_ANALYSED = sys.version_info[:2] != (3, 12)


def test_thousand_term_binary_operation():
    source = "import torch\nx = " + " + ".join(["torch.zeros(3)"] * 999 + ['torch.zeros(3, device="cuda")']) + "\n"
    diagnostics = timed_lint(source, bound=60)
    if THOUSAND_TERMS_ANALYSED:
        # TDV005: the CPU tensors are added to a CUDA one.
        assert [(d.line, d.code) for d in diagnostics] == [(2, "TDV005"), (2, "TDV001")]
        assert diagnostics[1].column == source.splitlines()[1].index('"cuda"')
    else:
        assert [(d.line, d.column, d.code) for d in diagnostics] == [(1, 0, "TDV900")]
        assert "nested too deeply to analyse" in diagnostics[0].message


LINT_IN_A_CHILD = (
    "import sys; from flake8_torchdevice.engine import lint_source; "
    "print(*[d.code for d in lint_source(open(sys.argv[1], encoding='utf-8').read())])"
)


def lint_in_a_child(source: str, folder) -> subprocess.CompletedProcess:
    """A crash in libcst's native parser is a segmentation fault: only a child process survives it."""
    path = folder / "deep.py"
    path.write_text(source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-c", LINT_IN_A_CHILD, str(path)], capture_output=True, text=True, timeout=300
    )


DEEP_INPUTS = {
    # name: (source, what the child must print)
    "199 brackets": ("import torch\nx = " + "(" * 199 + CUDA_LINE[4:] + ")" * 199 + "\n", "TDV001"),
    "1,500 parentheses": ("import torch\nx = " + "(" * 1_500 + "1" + ")" * 1_500 + "\n", "TDV900"),
    "5,000 square brackets": ("import torch\nx = " + "[" * 5_000 + "]" * 5_000 + "\n", "TDV900"),
    "100,000 mixed brackets": ("import torch\nx = " + "([{" * 33_333 + "}])" * 33_333 + "\n", "TDV900"),
    "brackets in strings and comments": (
        "import torch\n# " + "(" * 5_000 + "\ns = '" + "[" * 5_000 + "'\n",
        "",
    ),
    "unbalanced closers": ("import torch\nx = " + ")" * 5_000 + "\n", "TDV900"),
    "1,000 unary minus": ("import torch\nx = " + "-" * 1_000 + "1\n", ""),
}


@pytest.mark.parametrize("name", DEEP_INPUTS)
def test_deep_nesting_in_a_child_process(name, tmp_path):
    """Past libcst's (or the analysis') limits the answer is one TDV900, never a crash."""
    source, expected = DEEP_INPUTS[name]
    result = lint_in_a_child(source, tmp_path)
    assert result.returncode == 0, f"exit status {result.returncode}: {result.stderr[-2000:]}"
    assert result.stdout.strip() == expected


# --- never runs user code ------------------------------------------------------------------------

HOSTILE = textwrap.dedent(
    """\
    import os, sys
    open({marker!r}, "w").write("imported")
    import torch
    x = torch.zeros(3, device="cuda")
    os._exit(3)
    if __name__ == "__main__":
        sys.exit(4)
    """
)


@pytest.fixture
def hostile_file(tmp_path):
    marker = tmp_path / "MARKER"
    path = tmp_path / "hostile_module.py"
    path.write_text(HOSTILE.format(marker=str(marker)), encoding="utf-8")
    return path, marker


def test_the_engine_never_runs_the_code(hostile_file):
    path, marker = hostile_file
    assert [d.code for d in lint_source(path.read_text(encoding="utf-8"))] == ["TDV001"]
    assert not marker.exists()


def test_flake8_never_runs_the_code(hostile_file):
    path, marker = hostile_file
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "flake8",
            "--isolated",
            "--torchdevice-confidence=low",
            "--select=TDV",
            str(path.parent),
        ],
        capture_output=True,
        text=True,
        cwd=path.parent,
    )
    assert result.returncode == 1, result.stderr  # findings, and not os._exit(3)
    assert "TDV001" in result.stdout
    assert not marker.exists()


def test_the_cli_never_runs_the_code(hostile_file):
    path, marker = hostile_file
    candidates = [os.path.join(os.path.dirname(sys.executable), "torchdevice")]
    command = next((c for c in candidates if os.path.exists(c)), None)
    if command is None:
        pytest.skip("the torchdevice command is not installed")
    for arguments in (["check", str(path)], ["check", str(path.parent)], ["fix", str(path)]):
        result = subprocess.run([command, *arguments], capture_output=True, text=True, cwd=path.parent)
        assert result.returncode not in (3, 4), (arguments, result.stderr)
        assert "Traceback" not in result.stderr, result.stderr
    assert not marker.exists()


# --- known crashers and breakages --------------------------------------------------------------
# Minimal inputs found by the tests above. A crasher raised (or made the engine report "internal
# error"); a breakage made fix_source damage a file. Each stays here as a regression case.

CRASHER_REGRESSIONS = {
    # libcst's native parser overflows its stack (SIGSEGV: the whole flake8 / torchdevice process
    # dies) on expressions nested deeper than CPython accepts; the engine now refuses them first.
    # Sizes just past the thresholds measured with libcst 1.9 on Python 3.11. Newer Pythons once let
    # some through: from 3.12 the tokenizer refuses deep brackets itself, so the bracket count saw
    # an error instead of a depth, and 3.13's parser accepts a 7,000-term sum (the engine now
    # measures the tree's depth itself). CI runs them on the newest Python it finds, too.
    "1,300 parentheses": "import torch\nx = " + "(" * 1_300 + "1" + ")" * 1_300 + "\n",
    "8,200 nested not": "import torch\nx = " + "not " * 8_200 + "a\n",
    "3,600 nested lambda": "import torch\nx = " + "lambda: " * 3_600 + "a\n",
    "8,300 unary minus": "import torch\nx = " + "-" * 8_300 + "1\n",
    "7,000-term sum": "import torch\nx = " + " + ".join(["a"] * 7_000) + "\n",
    "5,000 attributes": "import torch\nx = a" + ".b" * 5_000 + "\n",
    "5,000 calls": "import torch\nx = a" + "()" * 5_000 + "\n",
    # The depth gate once measured physical lines only, so a deep expression continued with
    # backslashes slipped through; continuations are now joined first.
    "3,600 nested lambda over backslash continuations": "import torch\nx = " + "lambda: \\\n" * 3_600 + "a\n",
    # The depth walk skips nodes too short to hold the limit, measuring spans as ast counts
    # columns (UTF-8 bytes) and lines (\n, \r\n, \r; not form feeds): a long stretch that holds
    # a deep expression after multi-byte text and form feeds is still walked.
    # ...and a ``def``'s span starts after its decorators: a deep decorator must be walked too.
    "7,000-term sum as a decorator": "import torch\n@" + " + ".join(["a"] * 7_000) + "\ndef f():\n    pass\n",
    "4,000-term sum after form feeds and accents": "import torch\n\x0c\n\x0c# é\ns = 'ééé'; x = ("
    + " + ".join(["é"] * 4_000)
    + ")\n",
}


@pytest.mark.parametrize("name", CRASHER_REGRESSIONS)
def test_crasher_regressions(name, tmp_path):
    result = lint_in_a_child(CRASHER_REGRESSIONS[name], tmp_path)
    assert result.returncode == 0, f"exit status {result.returncode}"
    assert result.stdout.strip() == "TDV900"


TDV900_POSITION_REGRESSIONS = {
    # TDV900 once took libcst's raw error position: a line after the error, past that line's end.
    "blank line after the error": "import torch\n(x): int = 1\n\n\nprint(1)\n",
    "lone CR then CRLF": "# torch\rrom torch import nn\r\n\r\n# c\r\nmodel = nn.Sequential(nn.Linear(10, 10))\r\n",
}


@pytest.mark.parametrize("name", TDV900_POSITION_REGRESSIONS)
def test_tdv900_position_regressions(name):
    (diagnostic,) = lint_everywhere(TDV900_POSITION_REGRESSIONS[name])
    assert (diagnostic.line, diagnostic.column, diagnostic.code) == (1, 0, "TDV900")


KNOWN_FIX_BREAKAGES = {
    # TDV004 inserts map_location="cpu" and TDV007 device="cuda" with double quotes, inside a
    # double-quoted f-string: valid only from Python 3.12 (PEP 701). libcst accepts that on every
    # Python, so fix_source once returned broken text; it now asks Python's own parser too.
    "tdv004 in an f-string": 'import torch\nprint(f"{torch.load(path)}")\n',
    "tdv007 in an f-string": 'import torch\nprint(f"{torch.zeros(3).cuda()}")\n',
}
FIX_REGRESSIONS = {
    # libcst drops a leading BOM from Module.code, so fix_source(text) once lost a BOM the text
    # started with. (The CLI decodes with utf-8-sig and re-encodes, so files on disk kept theirs.)
    "fix_source keeps a leading BOM": "\ufeffimport torch\nx = torch.zeros(3)\nx.to(device)  # keep me\n",
    # TDV007's fix once replaced a parenthesised move by a call without the parentheses: the lines
    # of "(" and ")" changed and the comment inside them was deleted (found by the torch programs).
    "tdv007 kept its parentheses": "import torch\nx = (\n    torch.zeros(2).to(device)  # keep me\n)\n",
    # libcst also drops the final line break of a file whose lines end with a lone CR, so a fix
    # once cut the last "\r"; what libcst drops around the module is now put back.
    "fix_source keeps a final lone CR": "import torch\rx = torch.zeros(3)  # keep me\rx.to(device)\r",
}


@pytest.mark.parametrize("name", KNOWN_FIX_BREAKAGES)
def test_known_fix_breakages(name):
    source = KNOWN_FIX_BREAKAGES[name]
    assert lint_source(source)  # there is something to fix
    assert fix_errors(source) == []


@pytest.mark.parametrize("name", FIX_REGRESSIONS)
def test_fix_regressions(name):
    source = FIX_REGRESSIONS[name]
    assert lint_source(source)
    assert fix_errors(source) == []
    assert "# keep me" in fix_source(source, unsafe=True).source


@example("import torch\n")
@given(st.just("import torch\n"))
def test_profile_is_loaded(source):
    """The budget comes from conftest's profiles: CI=true selects "ci", otherwise "dev"."""
    expected = "ci" if os.environ.get("CI") else "dev"
    assert settings.get_current_profile_name() == (os.environ.get("HYPOTHESIS_PROFILE") or expected)


def test_the_engine_leaves_the_garbage_collector_as_it_found_it():
    """The engine pauses the cyclic GC around each file, also when threads lint at once."""
    import gc
    from concurrent.futures import ThreadPoolExecutor

    source = "import torch\nx = torch.zeros(3)\nx.to('cuda')\n" * 200
    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(lint_source, [source] * 16))
    assert gc.isenabled()
    gc.disable()
    try:
        lint_source(source)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.fixture
def owned_process(monkeypatch):
    """This test's process counts as the linter's own (as the command's is): its speed-ups apply."""
    from flake8_torchdevice import ownership

    monkeypatch.setattr(ownership, "_owned", True)


def test_a_shared_process_keeps_libcst_and_the_collector_as_they_are(monkeypatch):
    """In a process other code shares (flake8, an editor, an application calling the engine),
    libcst builds its nodes with its own checks and the cyclic GC keeps running."""
    import gc

    from flake8_torchdevice import ownership

    monkeypatch.setattr(ownership, "_owned", False)
    own_init = vars(cst.Name)["__init__"]
    seen = []
    parse = cst.parse_module

    def watched(source):
        seen.append((vars(cst.Name)["__init__"] is own_init, gc.isenabled()))
        return parse(source)

    monkeypatch.setattr(cst, "parse_module", watched)
    assert lint_source("import torch\nx = torch.zeros(3)\nx.to('cuda')\n")
    assert seen == [(True, True)]


def test_the_engine_leaves_libcst_validating_nodes(owned_process):
    """Nodes are built by the parsing ``__init__`` only while the engine parses: after it (threads
    included, and a file that does not parse), every class has its own again, and a hand-built
    invalid node is refused."""
    from concurrent.futures import ThreadPoolExecutor

    from flake8_torchdevice.parsing import _PARSING_INITS

    own = {cls: vars(cls)["__init__"] for cls in _PARSING_INITS}
    source = "import torch\nx = torch.zeros(3)\nx.to('cuda')\n" * 200
    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(lint_source, [source, "import torch\nx = (\n"] * 8))
    assert len(_PARSING_INITS) > 10
    assert all(vars(cls)["__init__"] is init for cls, init in own.items())
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_parsing_inits_take_the_dataclass_arguments():
    """Same parameters, order and defaults as the dataclass's ``__init__`` (a factory's default
    is another object, that reads the same and makes the same value)."""
    import inspect

    from flake8_torchdevice.parsing import _PARSING_INITS

    for cls, init in _PARSING_INITS.items():
        expected = inspect.signature(vars(cls)["__init__"]).parameters
        got = inspect.signature(init, follow_wrapped=False).parameters
        assert [(p.name, p.kind) for p in got.values()] == [(p.name, p.kind) for p in expected.values()], cls
        for name, parameter in expected.items():
            if repr(parameter.default) == "<factory>":
                assert repr(got[name].default) == "<factory>", (cls, name)
            else:
                assert got[name].default is parameter.default, (cls, name)


def test_parsing_inits_build_the_same_nodes_and_run_the_other_checks(owned_process):
    from flake8_torchdevice.parsing import _parsing_inits_in_use

    with _parsing_inits_in_use():
        built = [cst.Name("x"), cst.SimpleWhitespace("  "), cst.Call(cst.Name("f")), cst.Comma()]
        with pytest.raises(cst.CSTValidationError):  # Call's own check: unbalanced parentheses
            cst.Call(cst.Name("f"), lpar=[cst.LeftParen()])
        with pytest.raises(TypeError, match=r"Name\.__init__"):
            cst.Name()  # type: ignore[call-arg]
    own = [cst.Name("x"), cst.SimpleWhitespace("  "), cst.Call(cst.Name("f")), cst.Comma()]
    assert all(a.deep_equals(b) for a, b in zip(built, own, strict=True))


def test_a_subclass_keeps_its_checks_while_the_engine_parses(owned_process):
    """A node class of someone else's (another thread's) that inherits a parsing ``__init__``
    still runs its own ``__post_init__``."""
    from flake8_torchdevice.parsing import _parsing_inits_in_use

    class ShortName(cst.Name):
        def _validate(self) -> None:
            if len(self.value) > 3:
                raise cst.CSTValidationError("too long")

    with _parsing_inits_in_use():
        assert ShortName("abc").value == "abc"
        with pytest.raises(cst.CSTValidationError):
            ShortName("abcd")


@pytest.mark.parametrize(
    "source",
    [
        "try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n",  # a bare except: before another
        'label = "a" b"b"\n',  # str and bytes concatenated
        "x = f'a' b'b'\n",
        # Tokens the tokenizer refuses before any node check could.
        "x = 0777\n",
        "x = 1__0\n",
        "x = 0b2\n",
        "x = 1e\n",
        "x = ur'a'\n",
        "x = 1 $ 2\n",
    ],
)
def test_what_libcst_checks_refuse_is_still_refused(source):
    """Some syntax errors pass libcst's parser and are refused only by its node checks: those
    checks still run while the engine parses. Invalid numbers and strings, whose checks are
    skipped, are refused by the tokenizer first. Either way the file is unanalysable."""
    from flake8_torchdevice.parsing import parse_module

    with pytest.raises((cst.CSTValidationError, cst.ParserSyntaxError)):
        parse_module(source)
    diagnostics = lint_source("import torch\nx = torch.zeros(3).cuda()\n" + source)
    assert [diagnostic.code for diagnostic in diagnostics] == ["TDV900"]


def test_a_name_the_running_python_refuses_is_unanalysable():
    """libcst's tokenizer takes identifiers from a newer Unicode than the running Python's (ZWNJ
    before 3.13, U+0897 before 3.14); ``Name``'s check refuses them, and still runs while the
    engine parses."""
    from flake8_torchdevice.parsing import parse_module

    refused = [c for c in ("\u200c", "\u0897", "\ua7cb", "\U000105c0") if not f"x{c}".isidentifier()]
    if not refused:
        pytest.skip("this Python takes every name the tokenizer takes")
    source = f"x{refused[0]} = 1\n"
    with pytest.raises(cst.CSTValidationError):
        parse_module(source)
    diagnostics = lint_source("import torch\nx = torch.zeros(3).cuda()\n" + source)
    assert [diagnostic.code for diagnostic in diagnostics] == ["TDV900"]


def test_a_tree_parsed_by_the_engine_is_libcsts_tree():
    from pathlib import Path

    from flake8_torchdevice.parsing import parse_module

    root = Path(__file__).parent.parent
    paths = sorted((root / "tests" / "fixtures").rglob("*.py")) + sorted((root / "examples").rglob("*.py"))
    sources = [path.read_text(encoding="utf-8") for path in paths]
    assert len(sources) > 100
    assert all(parse_module(source).deep_equals(cst.parse_module(source)) for source in sources)


def test_the_collector_does_not_walk_a_linted_tree(monkeypatch):
    """The tree is freed before the cyclic GC resumes: alive then, it would all be walked by the
    collection that the next allocation starts (3 to 4 ms for a 1,000-line file). The GC is paused
    only in a process the command owns, so this test owns its process whatever ran before it."""
    import gc
    from pathlib import Path

    from flake8_torchdevice import ownership

    monkeypatch.setattr(ownership, "_owned", True)

    examples = sorted((Path(__file__).parent.parent / "examples").rglob("*.py"))
    source = "\n".join(path.read_text(encoding="utf-8") for path in examples)
    collections: list[str] = []

    def record(phase: str, info: dict[str, int]) -> None:
        collections.append(phase)

    assert lint_source(source)  # the first lint in a process imports libcst and the rules
    gc.collect()
    gc.callbacks.append(record)
    try:
        assert lint_source(source)
    finally:
        gc.callbacks.remove(record)
    assert collections == []


def test_a_linted_file_leaves_no_reference_cycles():
    """Reference counting frees a file's tree, analysis and findings as soon as the engine
    returns; a cycle would leave them all to the cyclic GC, which walks them later (~10 ms for
    a 1,000-line file, paid by whichever file is linted next)."""
    import gc
    from pathlib import Path

    examples = sorted((Path(__file__).parent.parent / "examples").rglob("*.py"))
    assert examples
    gc.collect()
    gc.disable()
    try:
        for path in examples:
            assert lint_source(path.read_text(encoding="utf-8"))
        assert gc.collect() == 0
    finally:
        gc.enable()
