"""The same attribution asked for by two sessions at once is computed once (issue #53, item 5): Why similar's
attributions go through the store every session shares (``get_or_compute``), so the second caller waits for the
first one's result rather than running the model beside it (67.7 s and 71.2 s at 4 steps, each twice one run)."""
from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest

import bertviz_core.measures.attribution as attribution_module
from bertviz_core.model.models import BUNDLED_MODEL
from ui.page_parts.why_similar import attribution
from ui.results import result_store

KEY = (BUNDLED_MODEL, "cpu")
ASKED = ("The cat sat on the mat, said the teacher of room 53.", "A dog lay on the rug, wrote the pupil.")


def test_two_sessions_asking_for_one_attribution_at_once_run_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[tuple[str, str]] = []
    computed = attribution_module.pair_attribution

    def counted(encoder: Any, first: str, second: str, *args: Any, **kwargs: Any) -> Any:
        runs.append((first, second))
        time.sleep(1.0)  # a run long enough that the other session asks while it is under way
        return computed(encoder, first, second, *args, **kwargs)

    monkeypatch.setattr(attribution_module, "pair_attribution", counted)
    together = threading.Barrier(2)
    results: list[Any] = []

    def session() -> None:
        together.wait()
        results.append(attribution(KEY, *ASKED, "mean", 6, 4, 2, "[PAD]", False, report=lambda *_: None))

    sessions = [threading.Thread(target=session) for _ in range(2)]
    for thread in sessions:
        thread.start()
    for thread in sessions:
        thread.join(300)
    assert len(results) == 2 and runs == [ASKED]
    assert results[0] is results[1]  # one result, shared read-only
    assert not results[0].matrix.flags.writeable
    np.testing.assert_allclose(results[0].matrix.sum(), results[0].score - results[0].reference_score,
                               atol=abs(results[0].error) + 1e-5)
    assert attribution(KEY, *ASKED, "mean", 6, 4, 2, "[PAD]", False, report=lambda *_: None) is results[0]
    assert len(runs) == 1  # asked again later: kept
    assert result_store().used >= results[0].matrix.nbytes  # within the store's byte budget, not beside it
