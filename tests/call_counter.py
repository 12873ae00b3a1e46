"""Counting model runs: shared by the tests' ``model_calls`` fixture and bench/model_calls.py."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bertviz_core.encoder import Encoder


@contextmanager
def counting_model_runs() -> Iterator[list[int]]:
    """Record every forward pass (``Encoder._forward``, behind encode, embed, attentions and word_vectors) while
    the block runs: one entry per run, holding how many texts it was given. Restored afterwards."""
    runs: list[int] = []
    original = Encoder._forward

    def counting(self: Encoder, items, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        runs.append(len(items))
        yield from original(self, items, *args, **kwargs)

    Encoder._forward = counting
    try:
        yield runs
    finally:
        Encoder._forward = original
