"""One Encoder shared by many threads with mixed calls; caches that stay bounded."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from bertviz_core import Encoder
from bertviz_core.corpora import TUTORIAL


def run(encoder: Encoder, job: tuple[str, int]) -> object:
    kind, i = job
    text = f"Thread job {i}: the bank by the river had {i} boats. " + "more words " * (i % 9)
    if kind == "tokenize":
        return encoder.tokenize(text, "and a pair" if i % 2 else None)
    if kind == "encode":
        return encoder.encode([text, TUTORIAL])
    if kind == "embed":
        return encoder.embed([text, TUTORIAL, "short"], ["mean", "max", "pooler"])
    return encoder.word_vectors([text, TUTORIAL], "bank", "first" if i % 2 else "mean")


def same(a: object, b: object) -> bool:
    if hasattr(a, "equals"):
        return a.equals(b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.abs(a[k] - b[k]).max() <= 1e-5 for k in a)
    return len(a) == len(b) and all(
        (x.ids == y.ids and np.abs(x.hidden_states - y.hidden_states).max() <= 1e-5) if hasattr(x, "ids")
        else (x.positions == y.positions and np.abs(x.vectors - y.vectors).max() <= 1e-5) for x, y in zip(a, b))


def test_mixed_calls_from_many_threads_equal_serial_results(bundled: Encoder) -> None:
    jobs = [(kind, i) for i in range(6) for kind in ("tokenize", "encode", "embed", "words")]
    serial = {job: run(bundled, job) for job in jobs}
    with ThreadPoolExecutor(max_workers=12) as pool:
        parallel = list(pool.map(lambda job: (job, run(bundled, job)), jobs * 3))
    assert len(parallel) == 72
    for job, result in parallel:
        assert same(result, serial[job]), job


def test_the_shared_store_keeps_its_arrays_within_the_byte_budget(bundled: Encoder,
                                                                     monkeypatch) -> None:  # noqa: ANN001
    import ui
    from bertviz_core.store import ByteBoundedStore, nbytes

    store = ByteBoundedStore(budget=1000)
    for i in range(10):
        assert store.put(i, {"x": np.zeros(30, dtype=np.float32)}) is not None  # 120 bytes each
    assert store.used == 960 and len(store) == 8 and store.get(0) is None and store.get(9) is not None
    assert store.put("huge", {"x": np.zeros(300, dtype=np.float32)}) is None and store.get("huge") is None  # no disk

    corpus = tuple(f"corpus sentence number {i}" for i in range(3))
    one = bundled.embed(list(corpus))
    assert nbytes(one) == sum(a.nbytes for a in one.values())
    monkeypatch.setenv("BERTVIZ_CACHE_MB", "1")
    ui.result_store.clear()  # a fresh, empty process-wide store for this test, with a 1 MiB budget
    assert ui.result_store().budget == 1 << 20
    key = ("all-MiniLM-L6-v2 (bundled)", "cpu")
    for i in range(40):  # forty visitors, forty different corpora of about 0.1 MiB each
        ui.embed_corpus(key, tuple(f"corpus {i}: {t}" for t in corpus))
    assert 0 < ui.result_store().used <= ui.result_store().budget
    assert len(ui.result_store()) == (1 << 20) // nbytes(one)
    ui.result_store.clear()


def test_the_warm_up_waits_while_a_page_runs_and_a_moment_after(monkeypatch: pytest.MonkeyPatch) -> None:
    import ui

    monkeypatch.setattr(ui, "QUIET_S", 0.3)
    resumed: list[float] = []
    waiter = threading.Thread(target=lambda: (ui.wait_for_quiet(), resumed.append(time.monotonic())))
    with ui.page_running():
        waiter.start()
        time.sleep(0.5)
        assert not resumed  # a page is running: the warm-up's next step waits
    ended = time.monotonic()
    waiter.join(5)
    assert resumed and resumed[0] - ended >= 0.3  # and waits QUIET_S more after it ends
