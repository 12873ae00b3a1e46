"""Counting model runs: shared by the tests' ``model_calls`` fixture and bench/model_calls.py."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bertviz_core.model.encoder import Encoder
from bertviz_core.runtime.offload import Offload


@contextmanager
def counting_model_runs() -> Iterator[list[int]]:
    """Record every forward pass (``Encoder._forward``, behind encode, embed, attentions and word_vectors) and
    every job sent to the worker process (``Offload.run``: a large corpus, whose passes run out of sight)
    while the block runs: one entry per run or job, holding how many texts it was given. Restored afterwards."""
    runs: list[int] = []
    forward, offloaded = Encoder._forward, Offload.run

    def counting(self: Encoder, items, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        runs.append(len(items))
        yield from forward(self, items, *args, **kwargs)

    def counting_jobs(self: Offload, job, model, device, texts, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        runs.append(len(texts))
        return offloaded(self, job, model, device, texts, *args, **kwargs)

    Encoder._forward, Offload.run = counting, counting_jobs
    try:
        yield runs
    finally:
        Encoder._forward, Offload.run = forward, offloaded
