"""What calls show about CUDA beyond conditions: a call that shows the code runs without CUDA
(a load onto the CPU, a ``--cpu`` option), CUDA named anywhere inside an expression (a test
case's ``marks=`` that skips it without CUDA), and whether a CUDA check decides every read of a
command-line option (``torch.device(args.device if torch.cuda.is_available() else "cpu")``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet

import libcst as cst

from ..knowledge import api
from .cuda_words import mentions_cuda
from .facts import CallFact
from .imports import ImportTable, dotted_name
from .literals import bool_value, names_the_cpu, string_value
from .syntax import children, every_node, keyword_argument


# Command-line options that choose the CPU: ``--cpu``, ``--no-cuda``, ``--no_gpu``, ``--use-cpu``.
def cpu_support(call: CallFact) -> str | None:
    """What a call shows about running without CUDA: a CPU option. Not a load onto the CPU: code
    that needs a GPU loads checkpoints there too, to spare the GPU's memory (round 21: a training
    script whose README asks for an A100), as the project's beliefs weigh it (project/beliefs.py)."""
    node = call.node
    if call.method == "add_argument":
        flags = [string_value(arg.value) for arg in node.args if arg.keyword is None]
        if any(flag is not None and api.CPU_OPTION.match(flag) for flag in flags):
            return "has a CPU option"
        default = keyword_argument(node, "default")
        if default is not None and "--device" in flags and names_the_cpu(default):
            return "defaults to the CPU"
    return None


def mentions_cuda_anywhere(node: cst.CSTNode) -> bool:
    """A name, keyword or string inside ``node`` that mentions CUDA or GPUs (``min_cuda_gpus``)."""
    if type(node) is cst.Name and mentions_cuda(node.value):
        return True
    text = string_value(node) if isinstance(node, cst.BaseExpression) else None
    if text is not None and mentions_cuda(text):
        return True
    return any(mentions_cuda_anywhere(child) for child in children(node))


# Where a script keeps its parsed options: ``args = parser.parse_args()`` names it; these are the
# names it is usually handed on by (``def main(args)``, ``opt``). ``x.device`` of a tensor is no read.
_NAMESPACES = frozenset({"args", "opt", "opts", "options", "arguments", "flags", "FLAGS", "hparams"})
# What only shows a value, or a namespace (``print(args.device)``, ``logger.info(args)``): no use.
_SHOWS = frozenset({"print", "vars", "str", "repr", "len", "pprint"})
_LOGS = frozenset({"info", "debug", "warning", "warn", "log", "write", "add_text"})


def options_never_false(calls: Iterable[cst.Call], module: cst.Module) -> dict[str, cst.Call]:
    """The options a script cannot turn off, by the attribute its parsed namespace holds (``dest``,
    else the long flag with ``-`` as ``_``): ``add_argument("--cuda", action="store_true",
    default=True)`` is true with the flag and without it, so ``if args.cuda:`` is no choice. Not
    where another parser of the file adds the same option otherwise, nor where the code sets it
    (``args.cuda = args.cuda and torch.cuda.is_available()``, ``set_defaults(cuda=...)``)."""
    never: dict[str, cst.Call] = {}
    switchable = set()
    for call in calls:
        name = option_attribute(call)
        if name is None:
            continue
        action, default = keyword_argument(call, "action"), keyword_argument(call, "default")
        if api.never_false(string_value(action) if action is not None else None, bool_value(default)):
            never.setdefault(name, call)
        else:
            switchable.add(name)
    never = {name: call for name, call in never.items() if name not in switchable}
    if not never:  # most files: spared the walk
        return {}
    changed = _set_by_the_code(module, never.keys())
    return {name: call for name, call in never.items() if name not in changed}


def option_flag(call: cst.Call) -> str | None:
    """The flag an ``add_argument`` call is known by: its long one (``--use-gpu`` of ``-g``)."""
    flags = [flag for arg in call.args if arg.keyword is None and (flag := string_value(arg.value))]
    return next((flag for flag in flags if flag.startswith("--")), flags[0] if flags else None)


def option_attribute(call: cst.Call) -> str | None:
    """The attribute an ``add_argument`` option is stored in, as argparse names it: ``dest=``, else
    its long flag (``--use-gpu``: ``use_gpu``), else its short one."""
    dest = keyword_argument(call, "dest")
    flag = option_flag(call)
    if dest is not None:
        return string_value(dest)
    return flag.lstrip("-").replace("-", "_") if flag is not None and flag.startswith("-") else None


def _set_by_the_code(module: cst.Module, names: AbstractSet[str]) -> set[str]:
    """The options among ``names`` that the code assigns (``args.cuda = ...``) or sets defaults of."""
    found: set[str] = set()
    for node in every_node(module):
        targets: list[cst.BaseExpression] = []
        if type(node) is cst.Assign:
            targets = [target.target for target in node.targets]
        elif type(node) is cst.AugAssign or type(node) is cst.AnnAssign:
            targets = [node.target]
        if targets:
            found.update(t.attr.value for t in targets if type(t) is cst.Attribute and t.attr.value in names)
        elif type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "set_defaults":
            keywords = (arg.keyword.value for arg in node.args if arg.keyword is not None)
            found.update(keyword for keyword in keywords if keyword in names)
    return found


def adds_an_option(node: cst.CSTNode) -> bool:
    """``parser.add_argument(...)``."""
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "add_argument"


def holds_options(name: str | None) -> bool:
    """``args``, ``self.opt``: a name that holds a script's parsed options."""
    return name is not None and name.rsplit(".", 1)[-1] in _NAMESPACES


def option_read_only_where_cuda_is(module: cst.Module, imports: ImportTable, option: str) -> bool | None:
    """Does a CUDA check decide every read of the option ``args.<option>`` in the module (it sits
    where the check found CUDA: ``args.device if torch.cuda.is_available() else "cpu"``, the body of
    ``if torch.cuda.is_available():``, the ``else`` of ``if not torch.cuda.is_available():``)? Then
    the option's ``"cuda"`` default is never used without CUDA. False where the namespace is handed
    to code this module does not define (which may read the option anywhere); None where the module
    never reads it. A read that only shows it (``print``, logging, an f-string) is no use."""
    functions = {statement.name.value: statement for statement in module.body if type(statement) is cst.FunctionDef}
    namespaces = _handed_to(module, functions, {*_NAMESPACES, *_parsed_into(module)})
    defined = set(functions)
    reads: list[bool] = []
    for checked in _option_reads(module, imports, option, namespaces, defined, False):
        if checked is None:
            return False
        reads.append(checked)
    return all(reads) if reads else None


def _handed_to(module: cst.Module, functions: dict[str, cst.FunctionDef], namespaces: set[str]) -> set[str]:
    """``namespaces``, with the parameters of the module's functions that calls hand one to
    (``main(args)`` into ``def main(parser_data)``), and so on."""
    calls = [
        (node, functions[node.func.value].params.params)
        for node in every_node(module)
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in functions
    ]
    grown = True
    while grown:
        grown = False
        for call, params in calls:
            for index, arg in enumerate(call.args):
                named = _parameter_handed(arg, index, params) if _namespace(arg.value, namespaces) else None
                if named is not None and named not in namespaces:
                    namespaces.add(named)
                    grown = True
    return namespaces


def _parameter_handed(arg: cst.Arg, index: int, params: Sequence[cst.Param]) -> str | None:
    """The parameter an argument binds: its keyword's, or the one at its position."""
    if arg.star:
        return None
    if arg.keyword is not None:
        return arg.keyword.value
    return params[index].name.value if index < len(params) else None


def _parsed_into(module: cst.Module) -> set[str]:
    """The names ``x = parser.parse_args()`` (or ``x, rest = parser.parse_known_args()``) binds."""
    names: set[str] = set()
    for node in every_node(module):
        if type(node) is cst.Assign and type(node.value) is cst.Call:
            method = dotted_name(node.value.func) or ""
            if method.endswith((".parse_args", ".parse_known_args")):
                target = node.targets[0].target
                first = target.elements[0].value if type(target) is cst.Tuple and target.elements else target
                if type(first) is cst.Name:
                    names.add(first.value)
    return names


def _option_reads(
    node: cst.CSTNode, imports: ImportTable, option: str, namespaces: AbstractSet[str], defined: set[str], checked: bool
) -> Iterator[bool | None]:
    """For each read of the option under ``node``, whether a CUDA check decides it; None for a
    namespace handed to a function this module does not define."""
    read = _read_of(node, option, namespaces)
    if read:
        yield checked
        return
    if type(node) is cst.FormattedString:
        return  # formatting a string places nothing
    if type(node) is cst.Call:
        name = dotted_name(node.func) or ""
        shows = name in _SHOWS or (type(node.func) is cst.Attribute and name.rsplit(".", 1)[-1] in _LOGS)
        if shows and imports.qualify(node.func) is None:
            for arg in node.args:  # what it shows is no use: the option itself, the namespace whole
                if not (_read_of(arg.value, option, namespaces) or _namespace(arg.value, namespaces)):
                    yield from _option_reads(arg.value, imports, option, namespaces, defined, checked)
            return
        handed = any(_namespace(arg.value, namespaces) for arg in node.args)
        if handed and name not in defined:
            yield None
    if type(node) is cst.If or type(node) is cst.IfExp:
        body, orelse = _cuda_in_branches(node.test, imports)
        yield from _option_reads(node.test, imports, option, namespaces, defined, checked)
        yield from _option_reads(node.body, imports, option, namespaces, defined, checked or body)
        if node.orelse is not None:
            yield from _option_reads(node.orelse, imports, option, namespaces, defined, checked or orelse)
        return
    for child in children(node):
        yield from _option_reads(child, imports, option, namespaces, defined, checked)


def _namespace(node: cst.BaseExpression, namespaces: AbstractSet[str]) -> bool:
    """``args``, or ``vars(args)``: the options whole, handed to a call."""
    if type(node) is cst.Call and dotted_name(node.func) == "vars" and node.args:
        node = node.args[0].value
    return type(node) is cst.Name and node.value in namespaces


def _read_of(node: cst.CSTNode, option: str, namespaces: AbstractSet[str]) -> bool:
    """``args.device``, ``getattr(args, "device")``, and any subscript by the option's name
    (``vars(args)["device"]``, a dictionary the options were copied into)."""
    if type(node) is cst.Attribute:
        return node.attr.value == option and type(node.value) is cst.Name and node.value.value in namespaces
    if type(node) is cst.Call and dotted_name(node.func) == "getattr" and len(node.args) >= 2:
        owner = node.args[0].value
        return type(owner) is cst.Name and owner.value in namespaces and string_value(node.args[1].value) == option
    if type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
        return string_value(node.slice[0].slice.value) == option
    return False


def _cuda_in_branches(test: cst.BaseExpression, imports: ImportTable) -> tuple[bool, bool]:
    """Whether the true branch of ``test``, and its false branch, run only where CUDA is."""
    if type(test) is cst.Call:
        return (imports.qualify(test.func) in api.AVAILABILITY_CHECKS, False)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        body, orelse = _cuda_in_branches(test.expression, imports)
        return orelse, body
    if type(test) is cst.BooleanOperation:
        left = _cuda_in_branches(test.left, imports)
        right = _cuda_in_branches(test.right, imports)
        if type(test.operator) is cst.And:  # true: both are; false: either may not be
            return left[0] or right[0], left[1] and right[1]
        return left[0] and right[0], left[1] or right[1]
    return False, False
