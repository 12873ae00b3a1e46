"""A class server: several Streamlit processes behind one address, each browser kept on one of them.

    python -m bertviz_core.runtime.class_server [--workers N] [--port 8501] [--address 0.0.0.0]
    make serve WORKERS=N

One Python process serves every session's reruns in turn (the interpreter's lock), so a class clicking at once
waits in one queue. Here ``workers`` processes each run ``streamlit run app.py`` on a loopback port of their own,
with the same environment (``BERTVIZ_MODELS``, the budgets, ``BERTVIZ_CORPORA``...), and HAProxy (Debian's
``haproxy``) serves them at one address. A browser's session lives in the memory of the process that served its
page (its widgets, uploads, downloads and media), so the proxy keeps each browser on one process: the first
response sets the cookie ``BERTVIZ_SERVER`` naming the process, and every later request (the websocket, an
upload, a download) goes where it says (cookie-based session affinity). A new browser goes to the process with
the fewest open connections (``balance leastconn``: each tab holds one websocket). The processes share no memory:
each loads its own model and keeps its own result store (``BERTVIZ_CACHE_MB`` each); on disk they share the model
files, the untrained twin's cache and precomputed stores (memory-mapped, so the system's page cache holds one copy).
Each process's thread pools (torch's, OpenMP's, the BLAS library's) take its share of the cores, and the BLAS
library's threads sleep soon after each call rather than spin (``server_env``).

Ctrl-C (or SIGTERM) stops the proxy and every process; if one of them stops by itself, the others are stopped too
and the command says which and why, with the end of its log.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COOKIE = "BERTVIZ_SERVER"
STOP_GRACE_S = 10.0
CONFIG = """\
global
    maxconn 4096
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 10m
    # a websocket stays open while its tab does; Streamlit's pings keep it busy
    timeout tunnel 1h
    timeout client-fin 30s
frontend class
    bind {address}:{port}
    default_backend streamlit
backend streamlit
    balance leastconn
    cookie {cookie} insert indirect nocache httponly
    option httpchk GET /_stcore/health
    http-check expect string ok
{servers}
"""


@dataclass(frozen=True)
class ClassServer:
    """A running class server: its address, its processes by name (``p1``... the Streamlit processes, whose names
    are also the cookie's values, and ``haproxy``) and the folder of their logs (``<name>.log``)."""

    url: str
    processes: dict[str, subprocess.Popen]
    logs: Path

    @property
    def pids(self) -> dict[str, int]:
        """Each Streamlit process's pid by its cookie value."""
        return {name: proc.pid for name, proc in self.processes.items() if name != "haproxy"}


def haproxy_path() -> str | None:
    """Debian's haproxy (in /usr/sbin, often off a user's PATH), or None when it is not installed."""
    return shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)


def haproxy_config(port: int, backends: list[int], address: str = "127.0.0.1") -> str:
    """HAProxy's configuration: ``address:port`` in front of one loopback Streamlit per port of ``backends``."""
    if not backends:
        raise ValueError("A class server needs at least one Streamlit process.")
    servers = "\n".join(f"    server p{i} 127.0.0.1:{p} check inter 2s cookie p{i}"
                        for i, p in enumerate(backends, start=1))
    return CONFIG.format(address=address, port=port, cookie=COOKIE, servers=servers)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        return urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok"
    except OSError:
        return False


def _log_tail(log: Path, lines: int = 15) -> str:
    text = log.read_text(encoding="utf-8", errors="replace").splitlines() if log.exists() else []
    return "\n".join(text[-lines:]) or "(its log is empty)"


def _what(name: str) -> str:
    return "haproxy" if name == "haproxy" else f"Streamlit process {name}"


def _exited(name: str, proc: subprocess.Popen, log: Path) -> ValueError:
    return ValueError(f"{_what(name)} stopped by itself (exit code {proc.returncode}); the end of its log, {log}:\n"
                      f"{_log_tail(log)}")


def _stop(procs: list[subprocess.Popen]) -> None:
    """Terminate every process, then kill those still running after ``STOP_GRACE_S`` (none is left behind)."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for proc in procs:
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _start(command: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    with log.open("w") as sink:  # the child keeps its own copy of the file descriptor
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)


def _wait_healthy(names: dict[str, tuple[str, subprocess.Popen, Path]], timeout: float) -> None:
    """Wait until every ``{name: (url, process, log)}`` answers its health check; say which did not, and why."""
    waiting = dict(names)
    deadline = time.monotonic() + timeout
    while waiting and time.monotonic() < deadline:
        for name, (url, proc, log) in list(waiting.items()):
            if proc.poll() is not None:
                raise _exited(name, proc, log)
            if _healthy(url):
                del waiting[name]
        time.sleep(0.2)
    if waiting:
        raise ValueError(f"{', '.join(map(_what, waiting))} did not answer within {timeout:g} s; see the logs in "
                         f"{next(iter(waiting.values()))[2].parent}.")


THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# OpenBLAS's threads spin for 2^28 processor cycles (about 0.1 s) after each call before they sleep, at the
# priority of the thread that loaded the library (the server's main one, not the warm-up's low-priority one): the
# warm-up's 44 small pooling cells held both cores for 4.5 s beside a visitor's page, 0.6 s with 2^4 cycles.
SPIN_VARIABLES = {"OPENBLAS_THREAD_TIMEOUT": "4"}


def thread_share(workers: int) -> dict[str, str]:
    """Each of ``workers`` processes' share of the cores for its thread pools, as the environment variables that
    set them, except those the environment sets already. OpenMP's threads wait busily: through a class's burst of
    setting changes on 2 cores, a lone process kept 1.67 cores busy at 0.070 CPU s a change (1.05 cores and 0.047 s
    with one thread), and two processes with pools for both cores took 0.054-0.059 s a change, 0.031-0.038 s with
    one thread each."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1  # as nproc
    share = str(max(1, usable // workers))
    return {name: share for name in THREAD_VARIABLES if name not in os.environ}


def server_env(workers: int) -> dict[str, str]:
    """What each of ``workers`` Streamlit processes adds to the environment, except what it sets already: BLAS
    threads that sleep soon after a call (``SPIN_VARIABLES``) and, for more than one process, each one's share of
    the cores (``thread_share``; one process keeps the libraries' own defaults). ``make run`` uses it too
    (``--env``)."""
    spin = {name: value for name, value in SPIN_VARIABLES.items() if name not in os.environ}
    return (thread_share(workers) if workers > 1 else {}) | spin


@contextmanager
def class_server(workers: int, port: int | None = None, address: str = "127.0.0.1",
                 env: dict[str, str] | None = None, logs: Path | None = None,
                 timeout: float = 180) -> Iterator[ClassServer]:
    """Run ``workers`` Streamlit processes of app.py behind HAProxy at ``address:port`` (a free port when None),
    each with this environment, its ``server_env`` and ``env``, their logs in ``logs`` (a new temporary folder when
    None); stop them all on leaving. Raises ValueError, with a sentence, when haproxy is missing or a process does
    not start."""
    if workers < 1:
        raise ValueError(f"WORKERS must be 1 or more, not {workers}.")
    haproxy = haproxy_path()
    if haproxy is None:
        raise ValueError("haproxy is not installed: run `make serve` as root once (it installs Debian's haproxy), "
                         "or apt-get install haproxy.")
    logs = Path(logs or tempfile.mkdtemp(prefix="bertviz-class-"))
    logs.mkdir(parents=True, exist_ok=True)
    port = port or _free_port()
    backends = [_free_port() for _ in range(workers)]
    child_env = {**os.environ, **server_env(workers), **(env or {})}
    procs: dict[str, subprocess.Popen] = {}
    with ExitStack() as stack:
        stack.callback(lambda: _stop(list(procs.values())))
        for i, backend in enumerate(backends, start=1):
            procs[f"p{i}"] = _start([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port",
                                     str(backend), "--server.address", "127.0.0.1", "--server.headless", "true"],
                                    logs / f"p{i}.log", child_env)
        _wait_healthy({name: (f"http://127.0.0.1:{backend}", proc, logs / f"{name}.log")
                       for (name, proc), backend in zip(procs.items(), backends)}, timeout)
        config = logs / "haproxy.cfg"
        config.write_text(haproxy_config(port, backends, address), encoding="utf-8")
        procs["haproxy"] = _start([haproxy, "-db", "-f", str(config)], logs / "haproxy.log", child_env)
        local = "127.0.0.1" if address in ("0.0.0.0", "::", "*") else address
        url = f"http://{local}:{port}"
        _wait_healthy({"haproxy": (url, procs["haproxy"], logs / "haproxy.log")}, timeout=30)
        yield ClassServer(url, dict(procs), logs)


def watch(server: ClassServer) -> None:
    """Wait until one of ``server``'s processes stops by itself; raise ValueError naming it, with its log's end."""
    while True:
        for name, proc in server.processes.items():
            if proc.poll() is not None:
                raise _exited(name, proc, server.logs / f"{name}.log")
        time.sleep(1)


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """The command: serve until Ctrl-C or SIGTERM (exit 0), or until a process fails (exit 1, said why)."""
    parser = argparse.ArgumentParser(prog="python -m bertviz_core.runtime.class_server",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="Streamlit processes (default: the number of cores)")
    parser.add_argument("--port", type=int, default=8501, help="the one address's port (default 8501)")
    parser.add_argument("--address", default="0.0.0.0", help="where to listen (default: every interface)")
    parser.add_argument("--env", action="store_true",
                        help="print each process's additions to the environment (NAME=value lines) and exit")
    args = parser.parse_args(argv)
    if args.env:
        print("\n".join(f"{name}={value}" for name, value in server_env(args.workers).items()))
        return 0
    for stop in (signal.SIGINT, signal.SIGTERM):  # SIGINT too: a shell may start a background job ignoring it
        signal.signal(stop, _terminated)
    try:
        with class_server(args.workers, args.port, args.address) as server:
            print(f"Class server on http://{args.address}:{args.port}: {args.workers} Streamlit processes "
                  f"(pids {', '.join(map(str, server.pids.values()))}), each browser kept on one by the cookie "
                  f"{COOKIE}. Logs in {server.logs}. Ctrl-C stops them all.", flush=True)
            watch(server)
    except KeyboardInterrupt:
        print("Stopped: the proxy and every Streamlit process.", flush=True)
        return 0
    except ValueError as err:
        print(f"The class server stopped: {err}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
