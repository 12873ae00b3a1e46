"""A bar says what runs before a model run's first batch (#51 item 8 and its review): the worker process's stages
(starting it, loading the model, tokenizing) reach every bar that wraps ``with_progress``'s progress callable, not
only the pages that hand it to ``embed_corpus`` as it is."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest


def recording_bar(shown: list[str]) -> Callable[[str, Callable[[Any], Any]], Any]:
    """A stand-in for ``ui.display.with_progress`` that records each text its bar would show."""
    def with_progress(label: str, run: Callable[[Any], Any]) -> Any:
        def progress(done: int, total: int) -> None:
            shown.append(f"{label}: {done} of {total}")
        progress.stage = lambda step: shown.append(f"{label}: {step}…")  # type: ignore[attr-defined]
        return run(progress)
    return with_progress


def test_which_models_bar_shows_the_workers_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    """pooled_models wraps the bar's callable to time the run: the wrapper keeps its ``stage`` (lost before #51's
    review), so "loading the model" shows before the first batch, and the run is still timed."""
    from ui.page_parts import which_model

    shown: list[str] = []

    def embed(key: tuple[str, str], texts: tuple[str, ...], progress: Any) -> dict[str, np.ndarray]:
        progress.stage("loading the model")  # as Offload.run does: only where the callable has a stage
        progress(len(texts), len(texts))
        return {"mean": np.zeros((len(texts), 3, 4), dtype=np.float32)}

    speeds: dict = {}
    monkeypatch.setattr(which_model, "with_progress", recording_bar(shown))
    monkeypatch.setattr(which_model, "embed_corpus", embed)
    monkeypatch.setattr(which_model, "model_of", lambda key: (key[0], key[1]))
    monkeypatch.setattr(which_model, "_speeds", lambda: speeds)
    which_model.pooled_models({"A": ("a", "cpu"), "B": ("b", "cpu")}, ("one", "two"))
    assert shown == ["Encoding with A: loading the model…", "Encoding with A: 2 of 2",
                     "Encoding with B: loading the model…", "Encoding with B: 2 of 2"]
    assert {key[0] for key in speeds} == {("a", "cpu"), ("b", "cpu")}  # each run timed, as before
