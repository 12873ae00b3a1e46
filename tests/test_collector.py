"""The garbage collector in the server: once the preload has loaded a model, what lives as long as the server is
frozen out of full collections (``ui.warm.freeze_long_lived``). That is safe because an encoder has no reference
cycle: one dropped later (evicted from the cache) is freed by reference counting alone, frozen or not.

A frozen object in a cycle would stay until the process ends. These tests load every architecture of the fixture
afresh, use each of the model's parts, and drop it with the collector off.
"""
from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import DEVICE, FAMILY_NAMES, MLM_NAMES

from bertviz_core import load_encoder
from ui.warm import freeze_long_lived

TEXTS = ["The bank by the river was muddy.", "She went to the bank."]


@contextmanager
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_an_encoder_is_freed_by_reference_counting_alone(family_dirs: dict[str, Path], name: str) -> None:
    encoder = load_encoder(str(family_dirs[name]), device=DEVICE)
    encoder.encode(TEXTS)
    encoder.attentions(TEXTS[:1])  # builds the eager-attention twin
    models = [encoder.model, encoder.eager_model()]
    if name in MLM_NAMES:
        encoder.fill_mask(f"The {encoder.mask_token} by the river.")
        models.append(encoder.mlm_head())
    parts = [weakref.ref(encoder), weakref.ref(encoder.tokenizer), weakref.ref(next(models[0].parameters()))]
    parts += [weakref.ref(module) for model in models for module in model.modules()]
    del models
    with collector_off():
        del encoder
        alive = [str(part())[:60] for part in parts if part() is not None]
    assert not alive, f"{name}: kept alive by a reference cycle: {alive}"


def test_freezing_keeps_what_lives_and_collects_what_is_garbage() -> None:
    """What is alive is out of the collector's generations after it (``gc.get_objects`` lists what a full
    collection scans, not what is frozen); a cycle already unreachable was collected, not frozen for good."""
    class Node:
        pass

    alive, cycle = {"a": [1]}, Node()
    cycle.itself = cycle
    gone = weakref.ref(cycle)
    del cycle
    try:
        freeze_long_lived()
        assert not any(o is alive for o in gc.get_objects()) and gone() is None
    finally:
        gc.unfreeze()  # the rest of this test process's tests see every object again


def test_the_preload_loads_primes_and_freezes_in_that_order(monkeypatch: pytest.MonkeyPatch) -> None:
    import ui.warm as warm

    done: list[str] = []

    class Loaded:
        info = "facts"

    monkeypatch.setattr(warm, "get_encoder", lambda model, device: done.append("load") or Loaded())
    monkeypatch.setattr(warm, "prime_thread_pools", lambda encoder: done.append("prime"))
    monkeypatch.setattr(warm, "freeze_long_lived", lambda: done.append("freeze"))
    assert warm.load("m", DEVICE) == "facts" and done == ["load", "prime", "freeze"]
    monkeypatch.setattr(warm, "get_encoder", lambda model, device: (_ for _ in ()).throw(ValueError("offline")))
    assert warm.load("m", DEVICE) is None and done == ["load", "prime", "freeze"]  # nothing frozen for a failure
