"""``torchdevice server``: the language server, over standard input and output (pygls).

A front end: LSP messages in, LSP messages out. Every question about a document's code goes to
editor.py, answered in one worker process within a time budget (``timeBudget``, 5 s by default),
so the editor never waits on the analysis and a file it cannot finish in time gets no
diagnostics, never a hang; a worker that overruns the budget or dies is replaced.

- Diagnostics when a document opens, is saved, or changes (300 ms after the last change), from the
  editor's text, saved or not. Severity from the finding's confidence: high is a Warning (the
  code runs here, and fails on another device or machine; Error is what editors show for code that
  cannot run at all), medium Information, low Hint. Each links to its rule's documentation.
- Code actions: each fix as a quick fix ("Fix: ...", "Fix (unsafe): ..."), "Ignore TDV00N for this
  line" (a ``# noqa`` comment), and ``source.fixAll.torchdevice``, every safe fix at once.
- Hover over a finding: its rule's documentation.
- The project's beliefs (whether it runs without CUDA, project/beliefs.py), read in a thread of
  their own when a document of the project first opens and again when a Python file is saved;
  until they are known, a document is linted alone, never kept waiting.
- Settings: ``initializationOptions`` and the ``torchdevice`` section of ``workspace/configuration``
  (camelCase keys of ``[tool.torchdevice]``, and ``timeBudget`` in seconds), over the
  ``[tool.torchdevice]`` of the document's nearest pyproject.toml, as the command's flags are.

A notebook opened as a text document (its JSON) gets no diagnostics: ``torchdevice check`` reads
notebooks.
"""

from __future__ import annotations

import asyncio
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

from lsprotocol import types
from pygls import uris
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

from . import __version__, editor
from .docs import documented, explain, rule_url
from .notebooks import physical_lines
from .project.beliefs import NO_FACTS, FileFacts, ProjectBeliefs
from .project.layout import find_root
from .project.scan import read_project
from .sources import DEFAULT_MEMORY_BUDGET_MIB, MIB
from .workers import Worker, WorkerDied

SOURCE = "torchdevice"
SECTION = "torchdevice"  # of workspace/configuration
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.torchdevice"
FIX_ALL_TITLE = "Fix all safe torchdevice findings"
DEFAULT_TIME_BUDGET_S = 5.0
TIME_BUDGET = "timeBudget"  # the server's own setting; the others are [tool.torchdevice] keys
# Typing goes on: the document is analysed once it has not changed for this long.
DEBOUNCE_S = 0.3

_SEVERITY = {
    "high": types.DiagnosticSeverity.Warning,
    "medium": types.DiagnosticSeverity.Information,
    "low": types.DiagnosticSeverity.Hint,
}
_CAPITAL = re.compile(r"[A-Z]")
_Answer = TypeVar("_Answer")


def serve() -> None:
    server = LanguageServer(
        "torchdevice",
        __version__,
        # The whole text at every change: pygls applies partial changes to lines split as
        # ``str.splitlines`` splits them (at form feeds too), which the LSP's lines are not.
        text_document_sync_kind=types.TextDocumentSyncKind.Full,
    )
    session = _Session(server)
    session.register()
    try:
        server.start_io()
    finally:
        session.close()


@dataclass(frozen=True)
class _Published:
    """The diagnostics last sent for a document, and the text they were found in."""

    version: int | None
    lines: list[str]
    found: list[editor.Found]
    diagnostics: list[types.Diagnostic]  # one for each of ``found``, in client units


class _Session:
    """The server's state: the editor's settings, the worker, and what each document was last told."""

    def __init__(self, server: LanguageServer) -> None:
        self._server = server
        self._initialization_options: Any = None
        self._settings: dict[str, Any] = {}
        self._time_budget = DEFAULT_TIME_BUDGET_S
        self._settings_known = asyncio.Event()
        warm_up = partial(editor.lint, editor.Document("", None, {}))
        self._worker: Worker[Callable[[], Any], Any] = Worker(operator.call, DEFAULT_MEMORY_BUDGET_MIB * MIB, warm_up)
        # One question at a time: the worker answers one at a time, each within the budget.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchdevice-analysis")
        # Each project's beliefs, read once in a thread of their own and again after a save: a
        # document is never kept waiting for them (it is linted alone until they are known).
        self._beliefs: dict[Path, ProjectBeliefs] = {}
        self._reading: dict[Path, asyncio.Future[ProjectBeliefs]] = {}
        # What the project said of each document when it was last linted: belief, callers, classes.
        self._linted_with: dict[str, FileFacts] = {}
        self._project_reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchdevice-project")
        self._pending: dict[str, asyncio.Task[None]] = {}
        self._published: dict[str, _Published] = {}
        self._shown: set[str] = set()

    def register(self) -> None:
        kinds = [types.CodeActionKind.QuickFix, FIX_ALL]
        actions = types.CodeActionOptions(code_action_kinds=kinds, resolve_provider=True)
        handlers: list[tuple[str, Any, Callable[..., Any]]] = [
            (types.INITIALIZE, None, self.initialize),
            (types.INITIALIZED, None, self.initialized),
            (types.WORKSPACE_DID_CHANGE_CONFIGURATION, None, self.did_change_configuration),
            (types.TEXT_DOCUMENT_DID_OPEN, None, self.did_open),
            (types.TEXT_DOCUMENT_DID_CHANGE, None, self.did_change),
            (types.TEXT_DOCUMENT_DID_SAVE, None, self.did_save),
            (types.TEXT_DOCUMENT_DID_CLOSE, None, self.did_close),
            (types.TEXT_DOCUMENT_CODE_ACTION, actions, self.code_action),
            (types.CODE_ACTION_RESOLVE, None, self.resolve_code_action),
            (types.TEXT_DOCUMENT_HOVER, None, self.hover),
        ]
        for method, options, handler in handlers:
            # pygls marks each handler with attributes, which a bound method cannot take and a partial can.
            self._server.feature(method, options)(partial(handler))

    def close(self) -> None:
        """After the event loop has ended (its pending lints cancelled with it): the worker goes too."""
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._project_reader.shutdown(wait=False, cancel_futures=True)
        self._worker.stop()

    # --- settings -------------------------------------------------------------------------------

    def initialize(self, params: types.InitializeParams) -> None:
        self._initialization_options = params.initialization_options
        self._use_settings(params.initialization_options)

    async def initialized(self, params: types.InitializedParams) -> None:
        try:
            await self._pull_configuration()
        finally:
            self._settings_known.set()
        # The worker's first second goes to importing the linter: spent now, not on the first file.
        await asyncio.get_running_loop().run_in_executor(self._executor, self._worker.start)

    async def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        if _asks_configuration(self._server.client_capabilities):
            await self._pull_configuration()
        else:
            pushed = params.settings.get(SECTION) if isinstance(params.settings, Mapping) else None
            self._use_settings(self._initialization_options, pushed)
        for uri in self._server.workspace.text_documents:
            self._lint_soon(uri, delay=0)

    async def _pull_configuration(self) -> None:
        if not _asks_configuration(self._server.client_capabilities):
            return
        request = types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        try:
            answer = await self._server.workspace_configuration_async(request)
        except Exception as error:  # the client's error response: keep the settings we have
            self._log(f"workspace/configuration failed: {error}")
            return
        self._use_settings(self._initialization_options, answer[0] if answer else None)

    def _use_settings(self, *layers: Any) -> None:
        """The editor's settings, each layer over the one before (configuration over initializationOptions)."""
        merged: dict[str, Any] = {}
        for layer in layers:
            merged.update(layer if isinstance(layer, Mapping) else {})
        self._settings = tool_table(merged)
        budget = merged.get(TIME_BUDGET, DEFAULT_TIME_BUDGET_S)
        valid = isinstance(budget, (int, float)) and not isinstance(budget, bool) and budget > 0
        if not valid:
            self._show_once(f"{editor.EDITOR_SETTINGS}: {TIME_BUDGET} must be a positive number of seconds")
        self._time_budget = float(budget) if valid else DEFAULT_TIME_BUDGET_S

    # --- diagnostics ----------------------------------------------------------------------------

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        self._lint_soon(params.text_document.uri, delay=0)

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        self._lint_soon(params.text_document.uri, delay=DEBOUNCE_S)

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        path = file_path(params.text_document.uri)
        if path is not None and path.suffix == ".py":
            self._read_project(find_root(path))  # the saved file may change what the project shows
        self._lint_soon(params.text_document.uri, delay=0)

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self._published.pop(uri, None)
        self._linted_with.pop(uri, None)
        self._server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def _lint_soon(self, uri: str, delay: float) -> None:
        """Lint after ``delay`` seconds, instead of any lint of this document still to come."""
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self._pending[uri] = asyncio.get_running_loop().create_task(self._lint(uri, delay))

    async def _lint(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        await self._settings_known.wait()
        document = self._open(uri)
        if document is None:
            return
        text, version = document.source, document.version
        linted = None
        if is_notebook(uri):
            self._log(f"{uri}: a notebook opened as text is not analysed; `torchdevice check` reads notebooks")
        else:
            asked = self._document(uri, text)
            # To lint it again when the project says something else of it.
            self._linted_with[uri] = FileFacts(asked.cpu_support, asked.callers, asked.classes, asked.checkpoints)
            linted = await self._ask(partial(editor.lint, asked), uri)
        if not self._is_current(uri, version):
            return  # closed, or changed since: a newer lint is on its way
        if linted is not None and linted.problem:
            self._show_once(linted.problem)
        self._publish(uri, version, text, linted.found if linted is not None else [])

    def _publish(self, uri: str, version: int | None, text: str, found: list[editor.Found]) -> None:
        lines = physical_lines(text)
        codec = self._server.workspace.position_codec
        diagnostics = [lsp_diagnostic(item, lines, codec) for item in found]
        self._published[uri] = _Published(version, lines, found, diagnostics)
        params = types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        self._server.text_document_publish_diagnostics(params)

    # --- code actions and hover -----------------------------------------------------------------

    async def code_action(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        published = self._current_published(uri)
        if published is None:
            return []
        only = params.context.only
        first, last = params.range.start.line, params.range.end.line
        here = [
            (found, diagnostic)
            for found, diagnostic in zip(published.found, published.diagnostics)
            if diagnostic.range.start.line <= last and first <= diagnostic.range.end.line
        ]
        actions = []
        if here and wanted(types.CodeActionKind.QuickFix, only):
            actions.extend(await self._quick_fixes(uri, published, here))
        if wanted(FIX_ALL, only) and any(found.diagnostic.fix == "safe" for found in published.found):
            actions.append(await self._fix_all(uri, published.version))
        return actions if self._is_current(uri, published.version) else []  # edits of a text gone by

    async def _quick_fixes(
        self, uri: str, published: _Published, here: Sequence[tuple[editor.Found, types.Diagnostic]]
    ) -> list[types.CodeAction]:
        diagnostics = {(found.diagnostic.code, found.start): diagnostic for found, diagnostic in here}
        text = "".join(published.lines)
        answered = await self._ask(partial(editor.actions, self._document(uri, text), list(diagnostics)), uri)
        codec = self._server.workspace.position_codec
        return [
            types.CodeAction(
                title=action_title(action),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostics[action.code, action.start]],
                is_preferred=action.kind == "fix",
                edit=workspace_edit(uri, action.edit, published.lines, codec),
            )
            for action in answered or []
        ]

    async def _fix_all(self, uri: str, version: int | None) -> types.CodeAction:
        """The action that applies every safe fix; its edit, which costs a whole fix run, is computed
        when the client resolves it, or now for a client that cannot."""
        action = types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, data={"uri": uri, "version": version})
        if _resolves_edits(self._server.client_capabilities):
            return action
        return await self.resolve_code_action(action)

    async def resolve_code_action(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, Mapping) else {}
        uri, version = data.get("uri"), data.get("version")
        document = self._open(uri) if action.kind == FIX_ALL and isinstance(uri, str) else None
        if document is None or document.version != version:
            return action  # not ours, or the document changed: no edit
        text = document.source
        edit = await self._ask(partial(editor.fix_all, self._document(document.uri, text)), document.uri)
        if edit is not None and self._is_current(document.uri, version):
            codec = self._server.workspace.position_codec
            action.edit = workspace_edit(document.uri, edit, physical_lines(text), codec)
        return action

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        published = self._current_published(params.text_document.uri)
        if published is None:
            return None
        here = [diagnostic for diagnostic in published.diagnostics if contains(diagnostic.range, params.position)]
        codes = dict.fromkeys(str(diagnostic.code) for diagnostic in here)
        if not codes:
            return None
        documentation = "\n\n---\n\n".join(explain(documented(code)) for code in codes)
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=documentation))

    # --- helpers --------------------------------------------------------------------------------

    async def _ask(self, question: Callable[[], _Answer], uri: str) -> _Answer | None:
        """``question()``, answered by the worker within the time budget; None, and a line in the
        editor's log saying why, when it is not."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, self._worker.call, question, self._time_budget)
        except TimeoutError:
            self._log(f"{uri}: not analysed within the time budget of {self._time_budget:g} s ({TIME_BUDGET})")
        except WorkerDied as error:
            self._log(f"{uri}: not analysed: the process analysing it {error}")
        return None

    def _document(self, uri: str, text: str) -> editor.Document:
        path = file_path(uri)
        if path is None:
            return editor.Document(text, None, self._settings)
        root = find_root(path)
        beliefs = self._beliefs.get(root)
        if beliefs is None:
            self._read_project(root)
        if beliefs is None:
            return editor.Document(text, path, self._settings)
        return editor.Document(text, path, self._settings, *beliefs.for_file(path))

    def _read_project(self, root: Path) -> None:
        """Read the project's beliefs in the background; when they change, lint its open documents again."""
        if root in self._reading:
            return
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._project_reader, read_project, root)
        self._reading[root] = future
        future.add_done_callback(partial(self._project_read, root))

    def _project_read(self, root: Path, future: asyncio.Future[ProjectBeliefs]) -> None:
        del self._reading[root]
        if future.cancelled() or future.exception() is not None:
            self._log(f"{root}: the project's beliefs could not be read: {future.exception()}")
            return
        beliefs = future.result()
        if self._beliefs.get(root) == beliefs:
            return
        self._beliefs[root] = beliefs
        for uri in self._server.workspace.text_documents:
            path = file_path(uri)
            if path is not None and self._linted_with.get(uri, NO_FACTS) != beliefs.for_file(path):
                self._lint_soon(uri, delay=0)

    def _open(self, uri: str) -> TextDocument | None:
        return self._server.workspace.text_documents.get(uri)

    def _is_current(self, uri: str, version: int | None) -> bool:
        document = self._open(uri)
        return document is not None and document.version == version

    def _current_published(self, uri: str) -> _Published | None:
        """What the document was last told, if that is about its text as it is now."""
        published = self._published.get(uri)
        return published if published is not None and self._is_current(uri, published.version) else None

    def _log(self, message: str) -> None:
        self._server.window_log_message(types.LogMessageParams(type=types.MessageType.Info, message=message))

    def _show_once(self, message: str) -> None:
        """A problem the user must fix (a configuration error), shown once, not at every keystroke."""
        if message not in self._shown:
            self._shown.add(message)
            self._server.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))


def tool_table(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The editor's settings as ``[tool.torchdevice]`` keys (``extendSelect`` is ``extend-select``),
    without the server's own."""
    return {
        _CAPITAL.sub(lambda capital: "-" + capital.group().lower(), key): value
        for key, value in settings.items()
        if key != TIME_BUDGET
    }


def lsp_diagnostic(found: editor.Found, lines: Sequence[str], codec: PositionCodec) -> types.Diagnostic:
    diagnostic = found.diagnostic
    url = rule_url(documented(diagnostic.code))
    return types.Diagnostic(
        range=lsp_range(found.start, found.end, lines, codec),
        message=diagnostic.message,
        severity=_SEVERITY[diagnostic.confidence],
        code=diagnostic.code,
        code_description=types.CodeDescription(href=url) if url else None,
        source=SOURCE,
    )


def lsp_range(start: editor.Position, end: editor.Position, lines: Sequence[str], codec: PositionCodec) -> types.Range:
    """A range in the client's units (UTF-16 code units unless it chose otherwise)."""
    return types.Range(
        start=codec.position_to_client_units(lines, types.Position(line=start[0], character=start[1])),
        end=codec.position_to_client_units(lines, types.Position(line=end[0], character=end[1])),
    )


def workspace_edit(uri: str, edit: editor.Edit, lines: Sequence[str], codec: PositionCodec) -> types.WorkspaceEdit:
    text_edit = types.TextEdit(range=lsp_range(edit.start, edit.end, lines, codec), new_text=edit.text)
    return types.WorkspaceEdit(changes={uri: [text_edit]})


def action_title(action: editor.Action) -> str:
    if action.kind == "noqa":
        return f"Ignore {action.code} for this line (`{action.description}`)"
    return f"Fix{' (unsafe)' if action.kind == 'unsafe fix' else ''}: {action.description}"


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether the client asks for actions of ``kind``: ``only`` names kinds or their parents
    (``source`` takes ``source.fixAll.torchdevice``)."""
    return only is None or any(kind == asked or kind.startswith(f"{asked}.") for asked in only)


def contains(range_: types.Range, position: types.Position) -> bool:
    start, end = range_.start, range_.end
    return (start.line, start.character) <= (position.line, position.character) <= (end.line, end.character)


def file_path(uri: str) -> Path | None:
    """The file of a ``file:`` URI; None for a buffer that has none (``untitled:``)."""
    path = uris.to_fs_path(uri) if urlparse(uri).scheme == "file" else None
    return Path(path) if path else None


def is_notebook(uri: str) -> bool:
    return urlparse(uri).path.lower().endswith(".ipynb")


def _asks_configuration(capabilities: types.ClientCapabilities) -> bool:
    return bool(capabilities.workspace and capabilities.workspace.configuration)


def _resolves_edits(capabilities: types.ClientCapabilities) -> bool:
    code_action = capabilities.text_document.code_action if capabilities.text_document else None
    support = code_action.resolve_support if code_action else None
    return support is not None and "edit" in support.properties
