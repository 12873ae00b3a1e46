"""The real app in a real browser: start `streamlit run app.py` on a free loopback port, drive Debian's chromium.

Shared by the browser tests, the screenshot script (docs/screenshots.py) and the benchmarks in bench/.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from bertviz_core.runtime.class_server import server_env  # each server as make run starts it

ROOT = Path(__file__).resolve().parents[1]
DEBIAN_CHROMIUM = "/usr/bin/chromium"
CHROMIUM = DEBIAN_CHROMIUM if Path(DEBIAN_CHROMIUM).exists() else (shutil.which("chromium") or DEBIAN_CHROMIUM)
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
RUNNING = "[data-testid='stApp'][data-test-script-state='running']"
# every chart on the page drawn: plotly has its SVG, Vega-Lite its canvas
DRAWN_JS = """() => Array.from(document.querySelectorAll('[data-testid=stPlotlyChart]'))
    .every(el => el.querySelector('.js-plotly-plot .main-svg'))
  && Array.from(document.querySelectorAll('[data-testid=stVegaLiteChart]')).every(el => el.querySelector('canvas'))"""
# The longest a test waits for a script run to finish: a bound, not a timing. Beside a CPU-heavy process a
# 160-text upload on two busy cores took past 90 s; waiting longer costs nothing when runs are quick.
IDLE_WAIT_MS = 300_000
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class LiveApp:
    url: str
    pid: int


@contextmanager
def running_app(script: str = "app.py", env: dict[str, str] | None = None, timeout: float = 60,
                log: Path | None = None, command: tuple[str, ...] = ("-m", "streamlit")) -> Iterator[LiveApp]:
    """Serve ``script`` with streamlit on a free loopback port; yield its URL and pid; stop it afterwards. With
    ``log``, the server's output is written there; ``command`` is what python runs in place of ``-m streamlit``
    (bench/timed_streamlit.py times each script run)."""
    sink = log.open("w") if log is not None else subprocess.DEVNULL
    try:
        app = start_app(script, env, timeout, sink, command)
        try:
            yield app
        finally:
            stop_app(app.pid)
    finally:
        if log is not None:
            sink.close()


def start_app(script: str = "app.py", env: dict[str, str] | None = None, timeout: float = 60,
              sink: IO | int = subprocess.DEVNULL, command: tuple[str, ...] = ("-m", "streamlit")) -> LiveApp:
    """``running_app``'s server, left running for ``stop_app``: the test session's shared server outlives the
    test worker that starts it."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, *command, "run", script, "--server.port", str(port),
         "--server.address", "127.0.0.1"],
        cwd=ROOT, env={**os.environ, **server_env(1), "HF_HUB_OFFLINE": "1", **(env or {})}, stdout=sink, stderr=sink,
    )
    app = LiveApp(f"http://127.0.0.1:{port}", proc.pid)
    try:
        wait_healthy(app.url, timeout)
    except RuntimeError:
        stop_app(app.pid)
        raise
    return app


def stop_app(pid: int, grace: float = 10) -> None:
    """Stop the server ``pid``: terminate, and kill it when a busy one has not stopped within ``grace`` seconds
    (never leave one running). It may be another process's child, so it is polled, and reaped when it is ours."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.time() + grace
        while time.time() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    return
            except ChildProcessError:  # not our child: its parent reaps it
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    return
            time.sleep(0.1)


def wait_healthy(url: str, timeout: float) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"streamlit at {url} did not become healthy within {timeout} s")


def wait_idle(page, settle_ms: int = 300) -> None:
    """Wait until the app's script run has finished, and the rerun it or an action triggered too."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.wait_for_selector(IDLE, timeout=IDLE_WAIT_MS)
    # After a click or a key the rerun it asks for has not always reached the server yet, and nothing in the page
    # marks a rerun that is asked for but not started (the script state reads 'notRunning' before and after it):
    # wait up to ``settle_ms`` for a run to start, then for it to end. Waiting for 'running' without a limit would
    # hang on the actions that start no rerun, or whose rerun ended before the wait began. Tests that need what a
    # rerun shows wait for it (a value changing, wait_for_change, or an element appearing).
    try:
        page.wait_for_selector(RUNNING, timeout=settle_ms)
    except PlaywrightTimeout:
        return  # none started: the page was and stays idle
    page.wait_for_selector(IDLE, timeout=IDLE_WAIT_MS)


# Counts every change to the page (nodes, attributes, text) from the first call on: a test that polls what
# the page shows waits for its next change, not for a fixed time.
CHANGES_JS = """() => {
  if (window.__changes === undefined) {
    window.__changes = 0;
    new MutationObserver(() => { window.__changes += 1; })
      .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  return window.__changes;
}"""


def changes(page) -> int:
    """How many times the page has changed since changes() was first called on it."""
    return page.evaluate(CHANGES_JS)


def wait_for_change(page, since: int, timeout_ms: float) -> bool:
    """Wait until the page changes after ``changes(page)`` returned ``since``; False when it did not in time."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("n => window.__changes > n", arg=since, timeout=timeout_ms)
    except PlaywrightTimeout:
        return False
    return True
