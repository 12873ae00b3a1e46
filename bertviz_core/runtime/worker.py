"""The worker process's side of ``offload.Offload``: it loads a model on first use, runs each job of ``jobs.JOBS``
it is sent, and sends back its progress and its result, each array written raw into a file (``_write``), which the
server reads back (``offload``). Started by ``offload.LOWEST_PRIORITY`` as ``python -c``, never imported by a page.
"""
from __future__ import annotations

import os
import sys
import tempfile
from multiprocessing.connection import Client
from typing import Any

import numpy as np

from bertviz_core.runtime.jobs import JOBS
from bertviz_core.runtime.store import arrays, map_arrays, release_free_memory

CANCEL = "cancel"


class Cancelled(Exception):
    """Raised in a job at its next progress report once its caller has stopped waiting for it."""


def _write(value: Any, parent: str) -> tuple[Any, list[tuple[str, str, tuple[int, ...]]]]:
    """``value`` with its arrays emptied, and (file, dtype, shape) of each array written raw into a new folder in
    ``parent``; a result of no kind the store holds (a grid cell's score, a table: small) whole, with no file."""
    try:
        arrays(value)
    except ValueError:
        return value, []
    folder, files = tempfile.mkdtemp(prefix="bertviz-offload-", dir=parent), []
    for number, array in enumerate(arrays(value)):
        path = os.path.join(folder, f"{number}.raw")
        np.ascontiguousarray(array).tofile(path)
        files.append((path, array.dtype.str, tuple(array.shape)))
    return map_arrays(value, lambda array: np.empty(0, array.dtype)), files


def _serve(connection: Any, folder: str) -> None:
    """The worker: load a model on first use, run each job it is sent, send back progress and the result."""
    from bertviz_core.model.encoder import load_encoder

    encoders: dict[tuple[str | None, str], Any] = {}
    while True:
        try:
            request = connection.recv()
        except EOFError:
            return  # the server closed the pipe: it is idle or gone
        if request == CANCEL:
            continue  # a cancel that crossed the result of the job it was for
        job, model, device, texts, extra = request

        def report(done: int, total: int) -> None:
            while connection.poll():
                if connection.recv() == CANCEL:
                    raise Cancelled
            connection.send(("progress", done, total))

        try:
            if (model, device) not in encoders:
                encoders.clear()  # one model at a time: the worker's memory stays one model's
                connection.send(("stage", "loading the model"))
                encoders[(model, device)] = load_encoder(model, device)
            connection.send(("stage", f"tokenizing {len(texts):,} texts, then running the first batch (the longest)"))
            # no name holds the result once it is written, so its memory is free before the next job; its
            # folder is made once the job has succeeded, so a failed one leaves none
            connection.send(("done", *_write(JOBS[job](encoders[(model, device)], texts, report, *extra), folder)))
        except Cancelled:
            connection.send(("cancelled",))
        except Exception as err:  # noqa: BLE001 - every failure goes back to the caller, which raises it
            connection.send(("error", type(err).__name__, str(err)))
        release_free_memory()


if __name__ == "__main__":  # see offload.LOWEST_PRIORITY: ADDRESS FOLDER as arguments, its key on stdin
    _serve(Client(sys.argv[1], authkey=bytes.fromhex(sys.stdin.readline().strip())), sys.argv[2])
