"""The layering the package promises: rules read the analysis only through its queries, each
analysis module is small and says what it is for, and only the language server speaks LSP."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "flake8_torchdevice"
RULES = sorted((PACKAGE / "rules").glob("*.py"))
ANALYSIS = sorted((PACKAGE / "analysis").rglob("*.py"))


def imported_modules(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found.append("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("path", RULES, ids=lambda path: path.name)
def test_rules_read_the_analysis_only_through_its_queries(path: Path) -> None:
    reaching_in = [
        module
        for module in imported_modules(path)
        if "analysis" in module.split(".") and module.lstrip(".") != "analysis.queries"
    ]
    assert not reaching_in, f"{path.name} imports {reaching_in}; rules import ..analysis.queries only"


@pytest.mark.parametrize("path", ANALYSIS, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_analysis_modules_are_small_and_say_their_job(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    # A generated table of torch's API is as long as the API; hand-written modules stay small.
    if not path.name.endswith("_generated.py"):
        assert len(source.splitlines()) <= 420, f"{path.name} has grown past ~400 lines: split it"
    assert ast.get_docstring(ast.parse(source)), f"{path.name} has no module docstring saying its one job"


def test_the_linter_never_imports_torch() -> None:
    for path in sorted(PACKAGE.rglob("*.py")):
        for module in imported_modules(path):
            assert module.split(".")[0] not in ("torch", "numpy"), f"{path} imports {module}"


def test_only_the_language_server_imports_an_lsp_library() -> None:
    """pygls is an optional extra: the plugin, the command and the server's worker (editor.py) run
    without it, and only server.py, the front end, speaks LSP."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "server.py":
            continue
        for module in imported_modules(path):
            assert module.split(".")[0] not in ("pygls", "lsprotocol"), f"{path} imports {module}"
            assert module.lstrip(".") != "server" or path.name == "cli.py", f"{path} imports the server"


def test_the_project_layer_reads_files_with_ast_and_knowledge_only():
    """project/ sits between the front ends and the analysis: it reads every file of a project, so
    it parses with ast (a tenth of libcst's cost) and shares torch facts through knowledge/; the
    analysis knows nothing of it."""
    for path in sorted((PACKAGE / "project").glob("*.py")):
        for module in imported_modules(path):
            assert module.split(".")[0] != "libcst", f"{path.name} imports libcst"
            assert "analysis" not in module.split("."), f"{path.name} imports {module}"
    for path in ANALYSIS:
        for module in imported_modules(path):
            assert "project" not in module.split("."), f"{path.name} imports {module}"


def test_the_analysis_modules_import_each_other_without_a_cycle():
    """Each analysis module builds on the ones it imports, never on one that imports it back (an
    import cycle is an object cycle waiting to happen: the summaries once held the interpreter)."""
    own = {path.stem for path in ANALYSIS if path.parent.name == "analysis"}
    graph = {
        path.stem: {module.lstrip(".").split(".")[0] for module in imported_modules(path) if module.startswith(".")}
        & own
        for path in ANALYSIS
        if path.parent.name == "analysis"
    }
    finished: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path[path.index(module) :], module))}"
        if module not in finished:
            for imported in sorted(graph[module]):
                visit(imported, (*path, module))
            finished.add(module)

    for module in sorted(graph):
        visit(module, ())
