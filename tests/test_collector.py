"""The garbage collector in the server: a loaded model is frozen out of full collections (``ui.picker.get_encoder``),
which is safe only because an encoder has no reference cycle, so one evicted from the cache is still freed.

A frozen object is freed by reference counting alone; one in a cycle would stay until the process ends. These tests
load every architecture of the fixture afresh, use each of the model's parts, and drop it with the collector off.
"""
from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import DEVICE, FAMILY_NAMES, MLM_NAMES
from tiny_models import save_tiny_bert

from bertviz_core import load_encoder
from ui.picker import get_encoder

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
    parts = [weakref.ref(encoder), weakref.ref(encoder.model), weakref.ref(encoder.eager_model())]
    if name in MLM_NAMES:
        encoder.fill_mask(f"The {encoder.mask_token} by the river.")
        parts.append(weakref.ref(encoder.mlm_head()))
    with collector_off():
        del encoder
        alive = [str(part())[:60] for part in parts if part() is not None]
    assert not alive, f"{name}: kept alive by a reference cycle: {alive}"


def test_loading_a_model_freezes_what_was_there(tmp_path: Path) -> None:
    """An object made before a load is out of the collector's generations after it (``gc.get_objects`` lists the
    generations a full collection scans, not the frozen ones)."""
    made_before = {"a": [1]}
    assert any(o is made_before for o in gc.get_objects())
    get_encoder(str(save_tiny_bert(tmp_path, layers=2)), DEVICE)  # a folder of its own: never cached before
    assert not any(o is made_before for o in gc.get_objects())
    gc.unfreeze()  # the rest of this test process's tests see every object again
