"""The suite's xdist groups hold: every test that drives a browser runs on one worker, with one chromium.

pytest-xdist drops groups without a word when pytest's node ids change under it (pytest 9.2 with xdist 3.8,
pytest-dev/pytest-xdist#1386); the suite then runs, slower, with a chromium per worker. A toy suite in a
subprocess, grouped by the same hook as conftest's, tells which workers started its stand-in browser.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import conftest
import pytest

TOY_CONFTEST = '''
import os
import pytest

@pytest.fixture(scope="session")
def browser():
    (pytest.toy_folder / os.environ.get("PYTEST_XDIST_WORKER", "main")).write_text("started")
    yield None

def pytest_configure(config):
    from pathlib import Path
    pytest.toy_folder = Path(os.environ["TOY_STARTED"])
'''
TOY_TESTS = '''
import time
import pytest

@pytest.mark.parametrize("i", range(12))
def test_in_a_browser(browser, i):
    time.sleep(0.05)

@pytest.mark.parametrize("i", range(24))
def test_without(i):
    time.sleep(0.05)
'''


@pytest.mark.slow
def test_the_browser_tests_run_on_one_worker(tmp_path: Path) -> None:
    hook = Path(conftest.__file__).read_text()
    start = hook.index("@pytest.hookimpl(tryfirst=True)  # before pytest-xdist")
    end = hook.find("\n\n\n", start)  # the hook, up to the next top-level definition or the file's end
    (tmp_path / "conftest.py").write_text(TOY_CONFTEST + "\n\n" + hook[start:end if end > 0 else None] + "\n")
    (tmp_path / "test_toy.py").write_text(TOY_TESTS)
    started = tmp_path / "started"
    started.mkdir()
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist",
                          "loadgroup", str(tmp_path)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TOY_STARTED": str(started)})
    assert "36 passed" in run.stdout, run.stdout + run.stderr
    assert len(list(started.iterdir())) == 1, sorted(p.name for p in started.iterdir())
