"""The robustness checks at scale: the whole standard library and the bench corpora, linted and fixed.

Every file goes through ``check_source`` with a ``# torch`` line appended, so the pre-filter lets
the analysis run on all of them. Nothing may escape, the analysis may not crash (a TDV900
"internal error"), every finding's position must start its node's text, and on every file with
findings ``fix_source(unsafe=True)`` must give text that parses, is idempotent and changes only
finding lines. The counts are printed (``pytest -s`` shows them).

Slow: run with ``pytest -m slow tests/test_corpus_scan.py``; files are spread over all CPUs.
The bench corpora (scripts/corpora.py) are used when they are already downloaded, never fetched.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import sysconfig
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from robustness_support import scan_file

pytestmark = pytest.mark.slow

REPOSITORY = Path(__file__).resolve().parent.parent


def stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    skipped = {"site-packages", "dist-packages"}
    return sorted(path for path in root.rglob("*.py") if not skipped & set(path.parts))


def _corpora_module():
    """scripts/corpora.py, or None when it is not importable."""
    sys.path.insert(0, str(REPOSITORY / "scripts"))
    try:
        import corpora
    except ImportError:
        return None
    finally:
        sys.path.remove(str(REPOSITORY / "scripts"))
    return corpora


def corpus_files() -> dict[str, list[Path]]:
    """{name: .py files} of the bench corpora present on this machine (never downloads)."""
    corpora = _corpora_module()
    if corpora is None:
        return {}
    root = Path(os.environ.get("TORCHDEVICE_CORPORA", corpora.DEFAULT_DEST))
    folders = {name: root / name for name in corpora.CORPORA}
    return {name: corpora.python_files(folder) for name, folder in folders.items() if (folder / ".unpacked").exists()}


def scan(paths: list[Path]) -> list[dict]:
    # Not fork: under pytest-xdist this process runs threads, and a forked copy of a threaded
    # process may deadlock (Python 3.12 and later warn about it).
    context = multiprocessing.get_context("forkserver" if sys.platform == "linux" else "spawn")
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1, mp_context=context) as pool:
        return list(pool.map(scan_file, map(str, paths), chunksize=8))


def summarise(label: str, results: list[dict], seconds: float) -> Counter:
    outcomes = Counter(result["outcome"] for result in results)
    findings = sum(result["findings"] for result in results)
    print(
        f"\n{label}: {len(results)} files in {seconds:.0f}s: {outcomes['analysed']} parsed and analysed, "
        f"{outcomes['undecodable']} skipped (undecodable), TDV900: {outcomes['libcst rejected']} libcst "
        f"rejected, {outcomes['too deep']} too deep, {outcomes['internal error']} internal errors; "
        f"{findings} findings; {outcomes['escaped']} exceptions escaped"
    )
    for result in results:
        if result["outcome"] == "libcst rejected" and result.get("python_parses"):
            print(f"  valid Python that libcst rejects: {result['path']}")
    return outcomes


def assert_clean(results: list[dict]) -> None:
    problems = [f"{r['path']} [{r['outcome']}]:\n" + "\n".join(r["problems"]) for r in results if r["problems"]]
    escaped = [r["path"] for r in results if r["outcome"] in ("escaped", "internal error")]
    assert not escaped and not problems, "\n\n".join(problems[:20])


def test_standard_library():
    paths = stdlib_files()
    assert len(paths) > 500, sysconfig.get_paths()["stdlib"]
    start = time.perf_counter()
    results = scan(paths)
    outcomes = summarise("CPython stdlib", results, time.perf_counter() - start)
    assert outcomes["analysed"] > 0.9 * len(paths)
    assert_clean(results)


CORPORA = corpus_files()


@pytest.mark.skipif(not CORPORA, reason="bench corpora not downloaded (python scripts/corpora.py)")
@pytest.mark.parametrize("name", sorted(CORPORA) or ["none"])
def test_bench_corpus(name):
    paths = CORPORA[name]
    start = time.perf_counter()
    results = scan(paths)
    outcomes = summarise(f"corpus {name}", results, time.perf_counter() - start)
    assert outcomes["analysed"] > 0.9 * len(paths)
    assert_clean(results)
