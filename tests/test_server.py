"""``torchdevice server`` end to end: a real LSP client (pytest-lsp) starts it and talks to it over
stdio, with the capabilities real editors announce.

No assertion is about time: a test waits for the notification it needs, and the only time limit
(``HANG``) stops a server that never answers instead of hanging the suite.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402  (after the skips: pygls brings it)
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from flake8_torchdevice.fixes import fix_source  # noqa: E402
from flake8_torchdevice.rules import ALL_RULES  # noqa: E402

# One server process (and its worker) per test: kept on one xdist worker, so that the suite's
# other processes do not multiply them, and pytest-asyncio's event loop stays the test's own.
pytestmark = [pytest.mark.xdist_group("language-server"), pytest.mark.asyncio]

HANG = 120  # seconds: a server that has not answered by then never will
SELECTED = {"extendSelect": ["TDV002", "TDV003"]}  # the editor's settings that turn TDV002 and TDV003 on

BUGGY = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.zeros(3)
x.to(device)
y = x.to(device)
z = y.numpy()
state = torch.load("model.pt")
"""
# TDV002 (off by default) at line 4 (0-based) on ``x.to(device)``; TDV003 (off by default) at line 6
# on ``numpy``; TDV004 (off by default, its fix unsafe; likely, as only the file shows it falls back)
# at line 7 on ``torch.load("model.pt")``.
TDV002_RANGE = ((4, 0), (4, 12))
TDV003_RANGE = ((6, 6), (6, 11))
TDV004_RANGE = ((7, 8), (7, 30))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "flake8_torchdevice", "server"]))
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def start(
    client: LanguageClient, root: Path, options: dict[str, Any] | None = None, editor: str = "visual-studio-code"
) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(editor),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="project")],
            initialization_options=options,
        )
    )


async def published(client: LanguageClient, uri: str, version: int | None) -> list[types.Diagnostic]:
    """The next diagnostics the server publishes, which must be about ``uri`` at ``version``."""
    params = await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), HANG)
    assert (params.uri, params.version) == (uri, version)
    return list(params.diagnostics)


async def opened(client: LanguageClient, path: Path, text: str, language: str = "python") -> list[types.Diagnostic]:
    item = types.TextDocumentItem(uri=path.as_uri(), language_id=language, version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    return await published(client, path.as_uri(), 1)


async def changed(client: LanguageClient, path: Path, version: int, text: str) -> list[types.Diagnostic]:
    document = types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version)
    change = types.TextDocumentContentChangeWholeDocument(text=text)
    client.text_document_did_change(types.DidChangeTextDocumentParams(text_document=document, content_changes=[change]))
    return await published(client, path.as_uri(), version)


async def code_actions(
    client: LanguageClient, path: Path, line: int, only: list[str] | None = None
) -> list[types.CodeAction]:
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
        range=types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)),
        context=types.CodeActionContext(diagnostics=[], only=only),
    )
    actions = await asyncio.wait_for(client.text_document_code_action_async(params), HANG)
    assert actions is not None
    assert all(isinstance(action, types.CodeAction) for action in actions)
    return actions  # type: ignore[return-value]


def span(diagnostic: types.Diagnostic) -> tuple[tuple[int, int], tuple[int, int]]:
    start, end = diagnostic.range.start, diagnostic.range.end
    return (start.line, start.character), (end.line, end.character)


def by_code(diagnostics: list[types.Diagnostic]) -> dict[str, types.Diagnostic]:
    return {str(diagnostic.code): diagnostic for diagnostic in diagnostics}


def applied(text: str, edit: types.WorkspaceEdit | None, uri: str) -> str:
    """``text`` with the edits a client would make (from the last, so that positions hold)."""
    assert edit is not None and edit.changes is not None
    lines = text.splitlines(keepends=True)
    offsets = [sum(len(line) for line in lines[:index]) for index in range(len(lines) + 1)]
    for change in sorted(edit.changes[uri], key=lambda change: span_of(change), reverse=True):
        start = offsets[change.range.start.line] + change.range.start.character
        end = offsets[change.range.end.line] + change.range.end.character
        text = text[:start] + change.new_text + text[end:]
    return text


def span_of(change: types.TextEdit) -> tuple[int, int]:
    return change.range.start.line, change.range.start.character


async def test_diagnostics_of_the_unsaved_buffer(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text("import torch\n")  # on disk: nothing to report; in the editor: BUGGY
    await start(client, tmp_path, SELECTED)
    diagnostics = by_code(await opened(client, path, BUGGY))

    assert sorted(diagnostics) == ["TDV002", "TDV003"]
    tdv002 = diagnostics["TDV002"]
    assert span(tdv002) == TDV002_RANGE
    assert span(diagnostics["TDV003"]) == TDV003_RANGE
    assert tdv002.severity == types.DiagnosticSeverity.Warning
    assert tdv002.source == "torchdevice"
    assert "x = x.to(device)" in tdv002.message
    assert tdv002.code_description is not None
    assert tdv002.code_description.href.endswith("/docs/rules.md#tdv002-discarded-tensor-conversion")


async def test_a_quick_fix_applied_and_the_diagnostics_updated(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    await start(client, tmp_path, SELECTED)
    await opened(client, path, BUGGY)

    actions = await code_actions(client, path, line=4)
    titles = [action.title for action in actions]
    assert titles[:2] == ["Fix: assign the converted tensor back", "Ignore TDV002 for this line (`# noqa: TDV002`)"]
    fix = actions[0]
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    assert fix.diagnostics is not None and [diagnostic.code for diagnostic in fix.diagnostics] == ["TDV002"]

    fixed = applied(BUGGY, fix.edit, path.as_uri())
    assert fixed.splitlines()[4] == "x = x.to(device)"
    assert sorted(by_code(await changed(client, path, 2, fixed))) == ["TDV003"]


async def test_ignore_for_this_line_writes_a_noqa_comment(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    text = BUGGY.replace("z = y.numpy()", "z = y.numpy()  # noqa: E501")
    await start(client, tmp_path, SELECTED)
    await opened(client, path, text)

    noqa = [action for action in await code_actions(client, path, line=6) if action.title.startswith("Ignore")]
    assert [action.title for action in noqa] == ["Ignore TDV003 for this line (`# noqa: TDV003`)"]
    silenced = applied(text, noqa[0].edit, path.as_uri())
    assert silenced.splitlines()[6] == "z = y.numpy()  # noqa: E501, TDV003"

    appended = [action for action in await code_actions(client, path, line=4) if action.title.startswith("Ignore")]
    silenced = applied(silenced, appended[0].edit, path.as_uri())
    assert silenced.splitlines()[4] == "x.to(device)  # noqa: TDV002"
    assert await changed(client, path, 2, silenced) == []


async def test_unsafe_fixes_are_labelled_and_fix_all_applies_the_safe_ones(
    client: LanguageClient, tmp_path: Path
) -> None:
    path = tmp_path / "train.py"
    await start(client, tmp_path, {"extendSelect": ["TDV002", "TDV003", "TDV004"], "confidence": "medium"})
    assert sorted(by_code(await opened(client, path, BUGGY))) == ["TDV002", "TDV003", "TDV004"]

    unsafe = (await code_actions(client, path, line=7))[0]
    assert unsafe.title == "Fix (unsafe): add map_location=device"
    assert not unsafe.is_preferred

    # VS Code resolves an action's edit when it is chosen: the fix run is not paid for in advance.
    [fix_all] = await code_actions(client, path, line=0, only=[types.CodeActionKind.SourceFixAll])
    assert fix_all.kind == "source.fixAll.torchdevice" and fix_all.edit is None
    resolved = await asyncio.wait_for(client.code_action_resolve_async(fix_all), HANG)
    rules = [rule for rule in ALL_RULES if rule.enabled_by_default or rule.code in ("TDV002", "TDV003", "TDV004")]
    assert applied(BUGGY, resolved.edit, path.as_uri()) == fix_source(BUGGY, rules=rules).source


async def test_fix_all_for_a_client_that_cannot_resolve(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    await start(client, tmp_path, SELECTED, editor="emacs")  # eglot: no codeAction/resolve
    await opened(client, path, BUGGY)

    [fix_all] = await code_actions(client, path, line=0, only=["source"])
    rules = [rule for rule in ALL_RULES if rule.enabled_by_default or rule.code in SELECTED["extendSelect"]]
    assert applied(BUGGY, fix_all.edit, path.as_uri()) == fix_source(BUGGY, rules=rules).source


async def test_edits_in_quick_succession_then_save_and_close(client: LanguageClient, tmp_path: Path) -> None:
    path, uri = tmp_path / "train.py", (tmp_path / "train.py").as_uri()
    await start(client, tmp_path, SELECTED)
    await opened(client, path, BUGGY)

    # Each change replaces the lint still to come: the next diagnostics are the last version's.
    for version, text in ((2, BUGGY.replace("x.to(device)", "x.cuda()")), (3, "import torch\n")):
        document = types.VersionedTextDocumentIdentifier(uri=uri, version=version)
        change = types.TextDocumentContentChangeWholeDocument(text=text)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(text_document=document, content_changes=[change])
        )
    assert sorted(by_code(await changed(client, path, 4, BUGGY.replace("\nx.to(device)\n", "\n")))) == ["TDV003"]

    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert sorted(by_code(await published(client, uri, 4))) == ["TDV003"]

    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert await published(client, uri, None) == []


async def test_ranges_are_in_the_client_s_units(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    await start(client, tmp_path, SELECTED)  # VS Code counts UTF-16 code units: an emoji is two
    text = BUGGY.replace("z = y.numpy()", 'z = ("😀", y.numpy())')
    assert span(by_code(await opened(client, path, text))["TDV003"]) == ((6, 13), (6, 18))  # 12 characters in


async def test_hover_shows_the_rule(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    await start(client, tmp_path, SELECTED)
    await opened(client, path, BUGGY)

    def hover(line: int, character: int) -> Any:
        position = types.Position(line=line, character=character)
        params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=position)
        return asyncio.wait_for(client.text_document_hover_async(params), HANG)

    shown = await hover(6, 8)
    assert isinstance(shown.contents, types.MarkupContent)
    assert shown.contents.kind == types.MarkupKind.Markdown
    assert shown.contents.value.startswith("# TDV003 numpy-on-accelerator")
    assert "## Why is this bad?" in shown.contents.value
    assert await hover(2, 3) is None


async def test_settings_from_the_editor_over_pyproject(client: LanguageClient, tmp_path: Path) -> None:
    table = '[tool.torchdevice]\nextend-select = ["TDV002", "TDV003", "TDV004"]\nconfidence = "medium"\n'
    (tmp_path / "pyproject.toml").write_text(table)
    path = tmp_path / "src" / "train.py"
    await start(client, tmp_path, {"ignore": ["TDV003"]})
    assert sorted(by_code(await opened(client, path, BUGGY))) == ["TDV002", "TDV004"]


async def test_settings_from_workspace_configuration(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    client.set_configuration({"ignore": ["TDV002"]}, section="torchdevice")
    await start(client, tmp_path, {"extendSelect": ["TDV002", "TDV003", "TDV004"]})
    # TDV004 is only likely here (the file alone falls back to the CPU): shown from medium on.
    assert sorted(by_code(await opened(client, path, BUGGY))) == ["TDV003"]

    client.set_configuration({"confidence": "low"}, section="torchdevice")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert sorted(by_code(await published(client, path.as_uri(), 1))) == ["TDV002", "TDV003", "TDV004"]


async def test_a_settings_error_is_shown_once_and_nothing_reported(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    await start(client, tmp_path, {"select": 3, "timeBudget": "soon"})
    assert await opened(client, path, BUGGY) == []
    assert await changed(client, path, 2, BUGGY + "\n") == []
    problems = [message.message for message in client.messages]
    assert len([problem for problem in problems if "select must be a list of strings" in problem]) == 1
    assert len([problem for problem in problems if "timeBudget must be a positive number" in problem]) == 1


async def test_a_file_past_the_time_budget_gets_no_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    slow = BUGGY * 25  # 200 lines: parsing alone takes far longer than the budget of 1 ms
    await start(client, tmp_path, {**SELECTED, "timeBudget": 0.001})
    assert await opened(client, path, slow) == []
    assert any("time budget" in message.message for message in client.log_messages)

    # The worker that overran was stopped; a fresh one answers when there is time.
    client.set_configuration({"timeBudget": HANG}, section="torchdevice")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert "TDV002" in by_code(await published(client, path.as_uri(), 1))


async def test_bad_input_is_answered_without_a_crash(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, SELECTED)
    binary = "import torch\n\x00\x01\x02\ufffd\ud800 = torch.zeros(\x7f\n"
    [unparsed] = await opened(client, tmp_path / "binary.py", binary)
    assert unparsed.code == "TDV900"

    huge = "import torch\nx = torch.zeros(3)\n" * (5_000_000 // 32)
    [too_large] = await opened(client, tmp_path / "huge.py", huge)
    assert too_large.code == "TDV900" and "memory budget" in too_large.message

    notebook = json.dumps({"cells": [{"cell_type": "code", "source": BUGGY, "metadata": {}, "outputs": []}]})
    assert await opened(client, tmp_path / "notebook.ipynb", notebook, language="json") == []

    assert sorted(by_code(await opened(client, tmp_path / "after.py", BUGGY))) == ["TDV002", "TDV003"]


async def test_the_project_s_belief_arrives_without_keeping_the_document_waiting(
    client: LanguageClient, tmp_path: Path
) -> None:
    """A script of the project falls back to the CPU: once the server has read the project, the
    hard-coded device in the open document is a sure finding, citing that script. Until then the
    document was linted alone (the finding likely, so not shown at the default confidence)."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "serve.py").write_text('import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n')
    path = tmp_path / "train.py"
    await start(client, tmp_path, {"extendSelect": ["TDV001"]})
    diagnostics = await opened(client, path, "import torch\n\nx = torch.zeros(3).cuda()\n")
    while "TDV001" not in by_code(diagnostics):
        diagnostics = await published(client, path.as_uri(), 1)
    message = by_code(diagnostics)["TDV001"].message
    assert message.endswith("(the project falls back to the CPU in serve.py:2)")
