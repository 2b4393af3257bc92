"""The language server's answers about one document (editor.py, run in its worker), without an LSP
client: spans, fix and noqa edits, settings, and the parts they are built from. The server itself,
end to end, is tests/test_server.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_torchdevice import editor
from flake8_torchdevice.docs import rule_url
from flake8_torchdevice.noqa import is_silenced, with_noqa
from flake8_torchdevice.rules import DOCUMENTED

ROOT = Path(__file__).resolve().parent.parent
BUGGY = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.zeros(3)
x.to(device)
y = (x.to(device))
z = y.numpy()
state = torch.load(
    "model.pt",
)
"""


def document(text: str = BUGGY, **settings: object) -> editor.Document:
    return editor.Document(text, None, settings)


def apply(text: str, edit: editor.Edit) -> str:
    lines = text.splitlines(keepends=True)

    def offset(position: editor.Position) -> int:
        return sum(len(line) for line in lines[: position[0]]) + position[1]

    return text[: offset(edit.start)] + edit.text + text[offset(edit.end) :]


def test_a_finding_spans_the_code_it_reports(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no pyproject.toml: the defaults, and TDV002 to TDV004 selected here
    selected = {"extend-select": ["TDV002", "TDV003", "TDV004"], "confidence": "medium"}
    found = editor.lint(document(**selected)).found
    spans = {item.diagnostic.code: (item.start, item.end) for item in found}
    assert spans == {
        "TDV002": ((4, 0), (4, 12)),  # x.to(device)
        "TDV003": ((6, 6), (6, 11)),  # numpy
        "TDV004": ((7, 8), (9, 1)),  # the call, over its three lines
    }


def test_noqa_and_the_selection_decide_what_is_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    silenced = BUGGY.replace("x.to(device)\n", "x.to(device)  # noqa: TDV002\n")
    # TDV002 and TDV003 are off by default: both selected, the noqa alone silences TDV002.
    found = editor.lint(document(silenced, **{"extend-select": ["TDV002", "TDV003"]})).found
    assert [item.diagnostic.code for item in found] == ["TDV003"]
    assert editor.lint(document(ignore=["TDV"])).found == []


def test_pyproject_of_the_document_under_the_editor_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.torchdevice]\nextend-select = ["TDV002", "TDV003", "TDV004"]\nignore = ["TDV002"]\n'
        'confidence = "medium"\n'
    )
    path = tmp_path / "pkg" / "train.py"
    codes = [item.diagnostic.code for item in editor.lint(editor.Document(BUGGY, path, {})).found]
    assert codes == ["TDV003", "TDV004"]
    overridden = editor.lint(editor.Document(BUGGY, path, {"ignore": ["TDV003"]})).found
    assert [item.diagnostic.code for item in overridden] == ["TDV002", "TDV004"]


def test_a_settings_error_is_named_and_nothing_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    linted = editor.lint(document(confidence="sure"))
    assert linted.found == []
    assert linted.problem is not None and linted.problem.startswith(editor.EDITOR_SETTINGS)


def test_unanalysable_text_gets_tdv900_on_its_first_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    [found] = editor.lint(document("import torch; x = (\n")).found
    assert (found.diagnostic.code, found.start, found.end) == ("TDV900", (0, 0), (0, 19))
    [too_large] = editor.lint(document("import torch\n" + "x = 1\n" * 400_000, **{"memory-budget": 1})).found
    assert too_large.diagnostic.code == "TDV900" and "memory budget" in too_large.diagnostic.message


def test_actions_fix_one_finding_each_and_write_noqa_comments(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wanted = [("TDV002", (4, 0)), ("TDV004", (7, 8))]
    actions = editor.actions(document(**{"extend-select": ["TDV002", "TDV004"], "confidence": "medium"}), wanted)
    assert [(action.kind, action.code) for action in actions] == [
        ("fix", "TDV002"),
        ("noqa", "TDV002"),
        ("unsafe fix", "TDV004"),
        ("noqa", "TDV004"),
    ]
    fixed = apply(BUGGY, actions[0].edit)
    assert fixed == BUGGY.replace("x.to(device)\n", "x = x.to(device)\n")
    assert actions[0].edit == editor.Edit((4, 1), (4, 1), " = x")  # the change alone, not the file
    assert apply(BUGGY, actions[3].edit).splitlines()[7] == "state = torch.load(  # noqa: TDV004"


def test_fix_all_is_the_command_s_fix(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    selected = {"extend-select": ["TDV002", "TDV003"]}  # off by default: TDV003's fix is the second one
    edit = editor.fix_all(document(**selected))
    assert edit is not None
    fixed = apply(BUGGY, edit)
    assert "x = x.to(device)\n" in fixed and "z = y.cpu().numpy()\n" in fixed
    assert editor.fix_all(document(fixed, **selected)) is None


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("x.to(d)\n", "x.to(d)  # noqa: TDV002\n"),
        ("x.to(d)   \r\n", "x.to(d)  # noqa: TDV002\r\n"),
        ("x.to(d)  # noqa: E501\n", "x.to(d)  # noqa: E501, TDV002\n"),
        ("x.to(d)  # NOQA:E501,W291 trailing words", "x.to(d)  # NOQA:E501,W291, TDV002 trailing words"),
        ("x.to(d)  # type: ignore", "x.to(d)  # type: ignore  # noqa: TDV002"),
        ("x.to(d)  # noqa", "x.to(d)  # noqa"),
    ],
)
def test_with_noqa_adds_the_code_as_flake8_reads_it(line, expected):
    assert with_noqa(line, "TDV002") == expected
    assert is_silenced(expected, "TDV002")


@pytest.mark.parametrize(
    "text",
    [
        'import torch\ns = """torch\nmore"""\n',  # the line ends inside a string
        "import torch\nx = 1 + \\\n    2\n",  # a backslash continues the line
        'import torch\ns = "# noqa: E501"\n',  # the noqa is text in a string
    ],
)
def test_no_noqa_edit_where_a_comment_would_change_the_code(text):
    assert editor.noqa_edit(text, 1, "TDV001") is None


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("a\nb\n", "a\nx\nb\n"),
        ("a\r\nb\r\n", "a\r\nb\r\nc\r\n"),
        ("a\r\nb", "a\nb"),
        ("", "x"),
        ("x", ""),
        ("same", "same"),
        ("é😀x\n", "é😀yx\n"),
    ],
)
def test_text_edit_turns_one_text_into_the_other(before, after):
    edit = editor.text_edit(before, after)
    assert apply(before, edit) == after
    lines = before.splitlines(keepends=True)
    for line, column in (edit.start, edit.end):  # never between the \r and the \n of a line break
        assert (line == len(lines) and column == 0) or not lines[line][:column].endswith("\r")


def test_each_rule_url_points_at_its_section_of_the_rules_reference():
    headings = re.findall(r"^## (TDV\d{3}) (\S+)$", (ROOT / "docs" / "rules.md").read_text(), flags=re.MULTILINE)
    anchors = {code: f"{code.lower()}-{name}" for code, name in headings}
    for rule in DOCUMENTED:
        url = rule_url(rule)
        assert url is not None and url.endswith(f"/docs/rules.md#{anchors[rule.code]}")


def test_the_server_without_pygls_says_how_to_install_it():
    hide_pygls = "import sys; sys.modules['pygls'] = None; from flake8_torchdevice.cli import main; sys.exit(main())"
    result = subprocess.run([sys.executable, "-c", hide_pygls, "server"], capture_output=True, text=True)
    assert result.returncode == 2
    assert "pip install 'flake8-torchdevice[server]'" in result.stderr
