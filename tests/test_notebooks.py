"""Jupyter notebooks: code cells as one module, IPython syntax skipped, cell positions, fixes in place."""

import json

import pytest

from flake8_torchdevice.cli import main
from flake8_torchdevice.engine import lint_source
from flake8_torchdevice.notebooks import parse_notebook


def code(source, outputs=(), count=None):
    return {
        "cell_type": "code",
        "execution_count": count,
        "metadata": {},
        "outputs": list(outputs),
        "source": source.splitlines(keepends=True),
    }


def markdown(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source.splitlines(keepends=True)}


def notebook(*cells, language="python"):
    document = {
        "cells": list(cells),
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": language, "name": "python3"},
            "language_info": {"name": language},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    # What Jupyter (nbformat) writes: sorted keys, indent 1, no ASCII escapes, a final newline.
    return json.dumps(document, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


STREAM = {"name": "stdout", "output_type": "stream", "text": ["température: 21°C\n"]}
TRAINING = notebook(
    markdown("# Entraînement\nOn choisit le device."),
    code('%matplotlib inline\nimport torch\n!nvidia-smi\ndevice = torch.device("mps")', [STREAM], 1),
    code(
        "weights = torch.ones(3, device=device)\nbias = torch.zeros(3)\nbias.to(device)\nout = weights + bias",
        [],
        2,
    ),
    markdown("Fin."),
    code("scores = torch.rand(4, device=device)\narray = scores.numpy()", [], 3),
)


def lint(tmp_path, monkeypatch, text, *args, name="nb.ipynb"):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text, encoding="utf-8")
    return main(["check", "--confidence", "low", *args, name])


def test_names_flow_between_cells_and_positions_name_the_cell(tmp_path, monkeypatch, capsys):
    assert lint(tmp_path, monkeypatch, TRAINING, "--quiet", "--select", "TDV") == 1  # TDV005 is off by default
    lines = capsys.readouterr().out.splitlines()
    # Cell numbers count every cell, Markdown included (as VS Code and ruff count them); lines and
    # columns are the cell's, 1-based.
    assert [(position, rest.split()[0]) for position, rest in (line.split(": ", 1) for line in lines)] == [
        ("nb.ipynb:cell 3:3:1", "TDV002"),
        ("nb.ipynb:cell 3:4:7", "TDV005"),
        ("nb.ipynb:cell 5:2:16", "TDV003"),
    ]


def test_json_reports_the_cell(tmp_path, monkeypatch, capsys):
    lint(tmp_path, monkeypatch, TRAINING, "--select", "TDV", "--format", "json")
    found = json.loads(capsys.readouterr().out)
    assert [(f["cell"], f["line"], f["column"], f["code"]) for f in found] == [
        (3, 3, 1, "TDV002"),
        (3, 4, 7, "TDV005"),
        (5, 2, 16, "TDV003"),
    ]


def test_ipython_syntax_is_skipped_and_keeps_line_numbers():
    text = notebook(
        code("%%bash\necho cuda\n"),
        code(
            "import torch\n"
            "files = !ls\n"
            "torch.zeros?\n"
            "?torch.ones\n"
            "for step in range(2):\n"
            "    %time step\n"
            "total = (1\n"
            "         % 2)\n"
            "ratio = 4 \\\n"
            "% 3\n"
            'template = """\n'
            "%d items, ok?\n"
            '"""  # a comment with ( and "\n'
            'x = torch.device("cuda")'
        ),
    )
    virtual = parse_notebook(text)
    for ipython in ("echo", "!ls", "torch.zeros?", "?torch.ones", "%time"):
        assert ipython not in virtual.source
    for python in ("% 2)", "% 3", "%d items, ok?"):  # continuation lines are Python, not IPython
        assert python in virtual.source
    diagnostics = lint_source(virtual.source)
    assert [d.code for d in diagnostics] == ["TDV001"]
    assert virtual.locate(diagnostics[0].line) == (2, 14)


def test_fix_rewrites_only_the_changed_cells_byte_for_byte(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "nb.ipynb"
    path.write_text(TRAINING, encoding="utf-8")
    assert main(["fix", "--select", "TDV002,TDV003", "nb.ipynb"]) == 0
    expected = TRAINING.replace('"bias.to(device)\\n"', '"bias = bias.to(device)\\n"').replace(
        '"array = scores.numpy()"', '"array = scores.cpu().numpy()"'
    )
    assert expected != TRAINING
    assert path.read_text(encoding="utf-8") == expected
    assert main(["fix", "--select", "TDV002,TDV003", "nb.ipynb"]) == 0
    assert path.read_text(encoding="utf-8") == expected


def test_fix_keeps_ipython_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = notebook(code('import torch\n%time x = 1\nmask = torch.ones(2).to("mps")\n!echo done'))
    (tmp_path / "nb.ipynb").write_text(text, encoding="utf-8")
    assert main(["fix", "--select", "TDV007", "nb.ipynb"]) == 0
    cell = json.loads((tmp_path / "nb.ipynb").read_text(encoding="utf-8"))["cells"][0]
    assert cell["source"] == [
        "import torch\n",
        "%time x = 1\n",
        'mask = torch.ones(2, device="mps")\n',
        "!echo done",
    ]


def test_an_unchanged_notebook_round_trips_byte_for_byte():
    virtual = parse_notebook(TRAINING)
    assert virtual.rewritten(virtual.source) == TRAINING


@pytest.mark.parametrize(
    "dump",
    [
        lambda document: json.dumps(document, indent=2) + "\n",  # ASCII escapes, indent 2 (other editors)
        lambda document: json.dumps(document, indent=1, ensure_ascii=False),  # no final newline
        lambda document: json.dumps(document, indent=1, ensure_ascii=False).replace("\n", "\r\n") + "\r\n",
    ],
    ids=["indent-2-ascii", "no-final-newline", "crlf"],
)
def test_other_writers_formats_are_kept(dump):
    text = dump(json.loads(TRAINING))
    virtual = parse_notebook(text)
    fixed = virtual.source.replace("bias.to(device)", "bias = bias.to(device)")
    assert virtual.rewritten(fixed) == text.replace('"bias.to(device)\\n"', '"bias = bias.to(device)\\n"')


def test_a_format_that_cannot_be_reproduced_is_not_rewritten(tmp_path, monkeypatch, capsys):
    text = json.dumps(json.loads(TRAINING), indent=1, separators=(",", ":"))  # no space after colons
    assert lint(tmp_path, monkeypatch, text, "--fix", "--extend-select", "TDV002") == 1
    assert (tmp_path / "nb.ipynb").read_text(encoding="utf-8") == text
    captured = capsys.readouterr()
    assert "cannot be rewritten without other changes" in captured.err and "TDV002" in captured.out


def test_other_kernels_and_broken_notebooks(tmp_path, monkeypatch, capsys):
    r_notebook = notebook(code('x <- "cuda"\ntorch$zeros(2)$to("cuda")'), language="R")
    assert lint(tmp_path, monkeypatch, r_notebook) == 0
    assert lint(tmp_path, monkeypatch, "{not json", name="broken.ipynb") == 1
    assert "broken.ipynb:1:1: TDV900 could not analyse this file (not a readable notebook" in capsys.readouterr().out


def test_directories_include_notebooks(tmp_path, monkeypatch, capsys):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "train.ipynb").write_text(TRAINING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--select", "TDV003"]) == 1
    assert capsys.readouterr().out.startswith("notebooks/train.ipynb:cell 5:2:16: TDV003 ")


def test_a_cell_source_stored_as_one_string_stays_a_string(tmp_path, monkeypatch):
    document = json.loads(TRAINING)
    document["cells"][2]["source"] = "".join(document["cells"][2]["source"])
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    assert lint(tmp_path, monkeypatch, text, "--fix", "--select", "TDV002") == 0
    cell = json.loads((tmp_path / "nb.ipynb").read_text(encoding="utf-8"))["cells"][2]
    assert (
        cell["source"]
        == "weights = torch.ones(3, device=device)\nbias = torch.zeros(3)\nbias = bias.to(device)\nout = weights + bias"
    )


def test_a_cell_with_a_syntax_error_is_skipped_and_the_rest_is_read():
    text = notebook(
        code("pip install torch\nconda install -y numpy\n"),
        code('model_name = "gpt2")\n'),  # half-edited: a kernel runs none of it
        code('import torch\nx = torch.device("cuda")\n'),
    )
    virtual = parse_notebook(text)
    assert "model_name" not in virtual.source and "pip install" not in virtual.source
    diagnostics = lint_source(virtual.source)
    assert [d.code for d in diagnostics] == ["TDV001"]
    assert virtual.locate(diagnostics[0].line) == (3, 2)


def test_lines_a_message_names_are_counted_in_cells(tmp_path, monkeypatch, capsys):
    text = notebook(
        markdown("# Evidence in another cell"),
        code('import torch\ndevice = torch.device("mps")\nmodel = torch.nn.Linear(3, 3).to(device)'),
        code("inputs = torch.rand(3, device=device)\nwith torch.no_grad():\n    outputs = model(inputs)"),
        code("scale = torch.rand(3, device=device)\nratio = scale.numpy()\nresult = outputs.numpy()"),
    )
    lint(tmp_path, monkeypatch, text, "--select", "TDV003", "--format", "json")
    messages = {(f["cell"], f["line"]): f["message"] for f in json.loads(capsys.readouterr().out)}
    assert "(made by torch.rand() at line 1)" in messages[(4, 2)]  # the finding's own cell
    assert "(computed by `model` at cell 3, line 3)" in messages[(4, 3)]


def test_a_conversion_ending_a_cell_is_displayed_not_discarded(tmp_path, monkeypatch, capsys):
    # Jupyter shows the value of a cell's last expression: `y_preds.cpu()` there is the point of
    # the cell. The same call followed by more code, or at the end of a function body, is lost.
    shown = notebook(
        code('import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")'),
        code("y_preds = torch.rand(3, device=device)\ny_preds.cpu()"),
        code("def show(t: torch.Tensor):\n    t.cpu()"),
        code("y_preds.cpu()\nprint(y_preds)"),
    )
    lint(tmp_path, monkeypatch, shown, "--select", "TDV002", "--format", "json")
    found = json.loads(capsys.readouterr().out)
    assert [(f["cell"], f["line"], f["code"]) for f in found] == [(3, 2, "TDV002"), (4, 1, "TDV002")]
