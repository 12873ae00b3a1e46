"""Model runs over a large corpus in a separate process at the lowest CPU priority.

A server runs every visitor's page in one process. A model run over a big upload in a thread of that process,
even at the lowest priority, shares the interpreter's lock with the pages: each of its Python steps between
torch's kernels takes the lock, and when the scheduler leaves that low-priority thread waiting while it holds
the lock, every page waits too. In a process of its own the run holds no lock of the server's, and the
kernel's scheduler alone gives the pages the cores first (bench/server_load.py measures both; see
docs/performance.md). It also takes no memory of the server's: its activations are the worker's.

One worker process (``worker``) serves one job of ``jobs.JOBS`` at a time and keeps its model loaded between jobs; it exits
after ``idle_seconds`` without a job, giving its memory back. Results come back through files: each array is written
raw by the worker and read back into memory, or memory-mapped read-only when it is larger than ``in_memory_up_to``
(the caller's cache budget), so nothing large passes through a pipe.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import signal
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Listener
from typing import Any

import numpy as np

import bertviz_core.checks as checks
from bertviz_core.runtime.jobs import JOBS
from bertviz_core.runtime.store import map_arrays, spill_folder
from bertviz_core.runtime.worker import CANCEL

Progress = Callable[[int, int], None]
ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")  # the tokenizer's too
CHUNK = 16 << 20  # bytes per read: the interpreter's lock is free during each, so pages run between them
# The worker's first lines, before any library starts a thread (each thread keeps the policy it was born with):
# Linux's idle policy, under which any other thread that wakes takes the core at once (a nice value alone lets
# the worker finish its time slice first, milliseconds that add up over the many wake-ups of a page's rerun),
# else the lowest nice value; then the worker itself. A pausable worker (``Offload(pausable=True)``) is also
# killed when the thread that started it ends: a worker left stopped by a server that died would never end.
LOWEST_PRIORITY = (
    "import os, runpy, sys\n"
    "if hasattr(os, 'SCHED_IDLE'):\n"
    "    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n"
    "elif hasattr(os, 'nice'):\n"
    "    os.nice(19)\n"
    "if sys.argv[3:] == ['pausable'] and sys.platform.startswith('linux'):\n"
    "    import ctypes, signal\n"
    "    ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG\n"
    "runpy.run_module('bertviz_core.runtime.worker', run_name='__main__')\n"
)


def _stopped() -> ValueError:
    return ValueError("The background worker that encodes large corpora stopped before it finished (it may have "
                      "run out of memory): try a smaller corpus.")


def _read(path: str, dtype: str, shape: tuple[int, ...], in_memory: bool) -> np.ndarray:
    """One array written by ``worker._write``: read into memory in chunks, or memory-mapped read-only."""
    if not in_memory and int(np.prod(shape)) > 0:
        mapped = np.memmap(path, dtype=np.dtype(dtype), mode="r", shape=shape)
        return mapped  # the map keeps the data once the file's name is removed
    array = np.empty(shape, np.dtype(dtype))
    view = memoryview(array.reshape(-1).view(np.uint8))
    with open(path, "rb", buffering=0) as file:
        for start in range(0, len(view), CHUNK):
            file.readinto(view[start:start + CHUNK])
    return array


class Offload:
    """One worker process at the lowest CPU priority, started on first use, that runs ``JOBS``. A ``pausable``
    one can be stopped where it stands and continued (``pause``, ``resume``): the background warm-up's, which
    must not take a core from a visitor's page even for the rest of a step; it ends with the thread that
    started it, and its thread pools have one thread each (``ONE_THREAD``): between a visitor's input and the page
    that stops it (50-70 ms in the browser), it holds one core, not every one."""

    def __init__(self, idle_seconds: float = 120.0, folder: str | None = None, pausable: bool = False) -> None:
        self.idle_seconds, self.folder, self.pausable = idle_seconds, folder or spill_folder(), pausable
        self._paused, self._ending, self._pausing = False, False, threading.Lock()
        self._lock = threading.Lock()  # one job at a time; the pipe is the worker's only channel
        self._process: Any = None
        self._connection: Any = None
        self._idle: threading.Timer | None = None

    @property
    def pid(self) -> int | None:
        """The worker's process id while it runs, else None."""
        process = self._process  # read once: ``stop`` may clear it meanwhile
        return process.pid if process is not None and process.poll() is None else None

    def run(self, job: str, model: str | None, device: str, texts: Sequence[str], progress: Progress | None = None,
            in_memory_up_to: int | None = None, extra: tuple[Any, ...] = ()) -> Any:
        """``JOBS[job](load_encoder(model, device), texts, report, *extra)`` in the worker, waited for; its result or
        its failure (a ValueError keeps its message). ``progress(done, total)`` is called here for each report
        of the job; an exception from ``progress`` (a page told to stop) cancels the job within one batch and
        is raised. A ``progress`` with a ``stage(text)`` method is also told what runs before the first batch ends
        (seconds each): the worker starting, the model loading, the texts being tokenized. Arrays larger than
        ``in_memory_up_to`` bytes in all come back memory-mapped read-only."""
        if job not in JOBS:
            raise ValueError(f"Unknown job {checks.shown(job)}: one of {', '.join(map(repr, JOBS))}.")
        texts, progress = tuple(checks.texts(texts)), checks.callback(progress)
        stage = getattr(progress, "stage", None)
        if progress is not None:
            progress(0, len(texts))  # the bar shows while the worker starts and loads its model (seconds)
        while not self._lock.acquire(timeout=1.0):
            if progress is not None:
                progress(0, len(texts))  # another job runs first; a page told to stop stops waiting here
        try:
            if self._idle is not None:
                self._idle.cancel()
            if stage is not None and self.pid is None:
                stage("starting the worker process")
            connection = self._started()
            connection.send((job, model, device, texts, extra))
            return self._answer(connection, progress, stage, in_memory_up_to)
        finally:
            self._idle = threading.Timer(self.idle_seconds, self.stop, kwargs={"only_if_idle": True})
            self._idle.daemon = True
            self._idle.start()
            self._lock.release()

    def _started(self) -> Any:
        """The worker's connection, starting the worker when none runs. A fresh interpreter (``LOWEST_PRIORITY``),
        not a fork (unsafe in a threaded server with torch) nor multiprocessing's spawn (which re-runs the
        caller's main script: a notebook's or a batch job's without a ``__main__`` guard)."""
        if self.pid is None:
            key = secrets.token_bytes(32)
            with Listener(authkey=key) as listener:
                package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
                env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                    filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
                if self.pausable:  # one core: the other stays free for the instant before a visitor's page stops it
                    env.update({name: "1" for name in ONE_THREAD})
                self._process = subprocess.Popen(
                    [sys.executable, "-c", LOWEST_PRIORITY, str(listener.address), self.folder,
                     *(["pausable"] if self.pausable else [])],
                    stdin=subprocess.PIPE, env=env)
                with self._pausing:  # paused before it started (a page runs): it starts stopped
                    if self._paused:
                        os.kill(self._process.pid, signal.SIGSTOP)
                self._process.stdin.write(key.hex().encode() + b"\n")
                self._process.stdin.close()
                self._connection = listener.accept()
        return self._connection

    def _answer(self, connection: Any, progress: Progress | None, stage: Callable[[str], None] | None,
                in_memory_up_to: int | None) -> Any:
        try:
            while (message := self._receive(connection))[0] in ("progress", "stage"):
                if message[0] == "stage" and stage is not None:
                    stage(message[1])
                elif message[0] == "progress" and progress is not None:
                    progress(*message[1:])
        except BaseException:
            self._cancel(connection)
            raise
        return self._result(message, in_memory_up_to)  # the job has ended: nothing left to cancel

    def _receive(self, connection: Any, patience: float | None = None) -> tuple:
        """The worker's next message; ValueError once the worker is gone or ``patience`` seconds passed."""
        waited = 0.0
        while not connection.poll(0.1):
            waited += 0.1
            if self.pid is None or (patience is not None and waited >= patience):
                self.stop()
                raise _stopped()
        try:
            return connection.recv()
        except (EOFError, OSError):
            self.stop()
            raise _stopped() from None

    def _result(self, message: tuple, in_memory_up_to: int | None) -> Any:
        if message[0] == "error":
            kind, text = message[1:]
            raise ValueError(text) if kind == "ValueError" else RuntimeError(f"{kind}: {text}")
        skeleton, files = message[1:]
        if not files:
            return skeleton  # a result with no arrays, or of no kind the store holds, came whole (``worker._write``)
        try:
            in_memory = in_memory_up_to is None or sum(
                int(np.prod(shape)) * np.dtype(dtype).itemsize for _, dtype, shape in files) <= in_memory_up_to
            loaded = iter([_read(path, dtype, shape, in_memory) for path, dtype, shape in files])
            return map_arrays(skeleton, lambda _: next(loaded))
        finally:
            if files:
                shutil.rmtree(os.path.dirname(files[0][0]), ignore_errors=True)

    def _cancel(self, connection: Any) -> None:
        """Tell the worker to stop its job and wait for it to say so (one batch); a result that crossed the
        cancel is dropped with its files."""
        try:
            connection.send(CANCEL)
            while (message := self._receive(connection, patience=60.0))[0] in ("progress", "stage"):
                pass
            if message[0] == "done" and message[2]:
                shutil.rmtree(os.path.dirname(message[2][0][0]), ignore_errors=True)
        except (ValueError, OSError):
            self.stop()

    def pause(self) -> None:
        """Stop a pausable worker where it stands (SIGSTOP): it takes no CPU until ``resume``."""
        self._signal(True)

    def resume(self) -> None:
        """Continue a paused worker (SIGCONT); nothing when it is not paused."""
        self._signal(False)

    def _signal(self, pause: bool) -> None:
        """The state wanted, kept (a worker started meanwhile starts in it), and signalled to the worker running.
        Windows has no SIGSTOP: there the worker runs on at its low priority."""
        with self._pausing:  # pages pause it, the warm-up's thread resumes it, ``stop`` detaches it
            if self.pausable and pause != self._paused and hasattr(signal, "SIGSTOP"):
                self._paused = pause
                if not self._ending:
                    _signalled(self._process, signal.SIGSTOP if pause else signal.SIGCONT)

    def stop(self, only_if_idle: bool = False) -> None:
        """End the worker (its memory returns to the system); the next job starts a new one. With
        ``only_if_idle``, only when no job is running."""
        if only_if_idle and not self._lock.acquire(blocking=False):
            return
        try:
            with self._pausing:  # a page pausing from now on leaves the ending worker running
                self._ending = True
            _signalled(self._process, getattr(signal, "SIGCONT", None))  # stopped, it would never read its pipe closed
            if self._connection is not None:
                self._connection.close()
            if self._process is not None:
                try:
                    self._process.wait(5.0)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            self._process = self._connection = None
            self._ending = False
        finally:
            if only_if_idle:
                self._lock.release()


def _signalled(process: Any, sig: signal.Signals | None) -> None:
    """``sig`` sent to a worker's ``process`` still running (none when either is None)."""
    if process is not None and sig is not None and process.poll() is None:
        with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
            os.kill(process.pid, sig)
