"""The .pre-commit-hooks.yaml hooks, run for real by `pre-commit try-repo` on a throwaway repository.

try-repo installs the hook repository's HEAD; for a working tree with uncommitted changes it makes a
shadow commit of the *tracked* files only (`git add -u`), so new, untracked files would be missing.
The test therefore snapshots this working tree (tracked and untracked, less what .gitignore
ignores) into a fresh repository with one commit, and points try-repo at that. pre-commit
pip-installs the package into an environment of its own: slow, so there are only two runs, on one
xdist worker so that the second reuses the first's environment. That environment lives in a
temporary PRE_COMMIT_HOME, not in the user's cache.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The last line shows the script runs without CUDA: its hard-coded "cuda" is a sure (default) finding.
BUGGY = (
    'import torch\n\ndevice = torch.device("cuda")\nbias = torch.zeros(3)\nbias.to(device)\n'
    'fallback = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
)
FIXED = BUGGY.replace("bias.to(device)", "bias = bias.to(device)")

pytestmark = [
    pytest.mark.xdist_group("pre-commit"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: pre-commit needs it"),
    pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout: nothing to hand to pre-commit"),
]


def git(*args, cwd):
    identity = ("-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false")
    return subprocess.run(["git", *identity, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="module")
def hook_repository(tmp_path_factory):
    """This working tree as it is, committed in a repository of its own."""
    pytest.importorskip("pre_commit", reason="pre-commit is in the [test] extra")
    snapshot = tmp_path_factory.mktemp("hooks")
    files = git("ls-files", "--cached", "--others", "--exclude-standard", "-z", cwd=ROOT).split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    git("init", "-q", cwd=snapshot)
    git("add", "-A", cwd=snapshot)
    git("commit", "-q", "-m", "snapshot", cwd=snapshot)
    return snapshot


@pytest.fixture
def project(tmp_path):
    git("init", "-q", cwd=tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    # The hooks read the project's configuration, as the command does.
    (tmp_path / "pyproject.toml").write_text('[tool.torchdevice]\nselect = ["TDV001", "TDV002"]\n')
    git("add", "train.py", "pyproject.toml", cwd=tmp_path)
    return tmp_path


def try_repo(hook_repository, hook, project, pre_commit_home):
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repository), hook, "--all-files"]
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home)}
    return subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=600, env=env)


def test_check_hook_reports_and_changes_nothing(hook_repository, project, pre_commit_home):
    result = try_repo(hook_repository, "torchdevice-check", project, pre_commit_home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "train.py:5:1: TDV002 " in result.stdout
    assert "train.py:3:23: TDV001 " in result.stdout
    assert (project / "train.py").read_text() == BUGGY


def test_fix_hook_fixes_and_reports_what_remains(hook_repository, project, pre_commit_home):
    result = try_repo(hook_repository, "torchdevice", project, pre_commit_home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert (project / "train.py").read_text() == FIXED
    assert "files were modified by this hook" in result.stdout
    assert "train.py:3:23: TDV001 " in result.stdout  # no safe fix for a hard-coded device
    assert "TDV002" not in result.stdout


def test_the_projects_own_configurations_are_valid():
    """The hooks offered to users, and the project's own pre-commit configuration (CONTRIBUTING.md)."""
    pytest.importorskip("pre_commit", reason="pre-commit is in the [test] extra")
    for command, name in (
        ("validate-manifest", ".pre-commit-hooks.yaml"),
        ("validate-config", ".pre-commit-config.yaml"),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "pre_commit", command, name], cwd=ROOT, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stdout + result.stderr
