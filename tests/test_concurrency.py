"""One Encoder shared by many threads with mixed calls; caches that stay bounded."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from conftest import until

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


@pytest.mark.slow
def test_mixed_calls_from_many_threads_equal_serial_results(bundled: Encoder) -> None:
    jobs = [(kind, i) for i in range(6) for kind in ("tokenize", "encode", "embed", "words")]
    serial = {job: run(bundled, job) for job in jobs}
    with ThreadPoolExecutor(max_workers=12) as pool:
        parallel = list(pool.map(lambda job: (job, run(bundled, job)), jobs * 3))
    assert len(parallel) == 72
    for job, result in parallel:
        assert same(result, serial[job]), job


@pytest.mark.slow
def test_the_shared_store_keeps_its_arrays_within_the_byte_budget(bundled: Encoder,
                                                                     monkeypatch) -> None:  # noqa: ANN001
    import ui
    from bertviz_core.runtime.store import ByteBoundedStore, nbytes

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
    from ui import warm

    monkeypatch.setattr(warm, "QUIET_S", 0.3)
    resumed: list[float] = []
    waiter = threading.Thread(target=lambda: (warm.wait_for_quiet(), resumed.append(time.monotonic())))
    with warm.page_running():
        waiter.start()
        time.sleep(0.5)
        assert not resumed  # a page is running: the warm-up's next step waits
    ended = time.monotonic()
    waiter.join(5)
    assert resumed and resumed[0] - ended >= 0.3  # and waits QUIET_S more after it ends


def test_a_fragment_rerun_holds_the_warm_up_back_as_a_page_run_does() -> None:
    from streamlit.testing.v1 import AppTest

    from ui import warm

    script = """
import streamlit as st
from ui import warm

@warm.fragment
def part():
    st.checkbox("On", key="on")
    st.session_state.setdefault("running", []).append(warm._visitor_runs["count"])

part()
"""
    app = AppTest.from_string(script).run()
    before = warm._visitor_runs["last_end"]
    app.checkbox(key="on").check().run()
    assert not app.exception and app.session_state["running"] == [1, 1]  # counted while it draws, both times
    assert warm._visitor_runs["count"] == 0 and warm._visitor_runs["last_end"] > before


def test_every_fragment_is_one_the_warm_up_waits_for() -> None:
    root = Path(__file__).resolve().parents[1]
    sources = [*root.glob("pages/*.py"), *root.glob("ui/**/*.py"), root / "app.py"]
    declaring = root / "ui" / "warm" / "__init__.py"  # where ``fragment`` itself is
    assert not [p.name for p in sources if p != declaring and "st.fragment" in p.read_text()]


def test_a_visitors_page_stops_the_warm_up_worker_at_once_and_it_goes_on_quiet_s_after(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ui import warm

    class Worker:  # what the warm-up asks of its Offload(pausable=True), timed
        def __init__(self) -> None:
            self.pauses: list[float] = []
            self.resumes: list[float] = []

        def pause(self) -> None:
            self.pauses.append(time.monotonic())

        def resume(self) -> None:
            self.resumes.append(time.monotonic())

    monkeypatch.setattr(warm, "QUIET_S", 0.3)
    worker, done = Worker(), threading.Event()
    monkeypatch.setattr(warm, "_warming", [worker])
    with warm.page_running():
        assert len(worker.pauses) == 1  # stopped as the page started, not at the next poll
        resumer = threading.Thread(target=warm._resume_when_quiet, args=(worker, done), daemon=True)
        resumer.start()
        time.sleep(0.4)
        assert not worker.resumes  # a page is running
    assert until(lambda: bool(worker.resumes))
    assert worker.resumes[0] - warm._visitor_runs["last_end"] >= 0.3  # and QUIET_S after it ended
    done.set()
    resumer.join(10)


def test_every_warm_up_job_computes_what_its_page_computes_and_the_page_keeps_it_handed(tiny_dir: Path) -> None:
    import streamlit as st

    from bertviz_core.runtime.jobs import JOBS
    from conftest import same_result
    from ui import warm
    from ui.picker import get_encoder
    from ui.results import handing, result_store, shared

    key = (str(tiny_dir), "cpu")
    encoder = get_encoder(*key)
    calls = [call for name in warm.WARM_STEPS for call in warm.WARM_STEPS[name](key, encoder.info)]
    done = {id(call): JOBS[call.job](encoder, call.texts, None, *call.extra) for call in calls}  # as the worker does
    for call in calls:
        same_result(call.keep(), done[id(call)])  # the page's own call, computed here
    st.cache_data.clear()
    result_store.clear()  # every cache empty: each page's call misses, and keeps what it is handed
    for call in calls:
        handed = done[id(call)] if call.into is shared else f"handed to {call.job}"  # the store holds arrays only
        with handing(call.into, handed):
            kept = call.keep()
        assert kept is handed if call.into is shared else kept == handed, call.job
        assert call.keep() is kept if call.into is shared else call.keep() == handed  # and it stays cached
    with handing(shared, {"x": np.ones(2)}):  # kept read-only, as a computed result is
        kept = shared(("a result no page computed", key), lambda: {"x": np.zeros(2)})
    assert kept["x"].all() and not kept["x"].flags.writeable


def test_every_page_declares_its_warm_up_from_known_steps_and_every_step_serves_a_page() -> None:
    from ui import warm
    from bertviz_core.views.page_registry import PAGES

    declared = {name for entry in PAGES for name in entry.warm_up}
    assert declared <= set(warm.WARM_STEPS), declared - set(warm.WARM_STEPS)
    assert set(warm.WARM_STEPS) <= declared, "a step no page needs"
    assert warm.warm_steps() == [name for name in warm.WARM_STEPS if name in declared]



def test_a_low_priority_run_runs_at_the_lowest_priority_and_hands_back_its_result_or_error() -> None:
    import os
    import sys

    import ui

    if not sys.platform.startswith("linux"):
        pytest.skip("thread priorities are set on Linux only")
    priority = lambda *_: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())  # noqa: E731
    assert ui.at_low_priority(priority) == 19 and priority() < 19  # the caller's priority is kept
    with pytest.raises(ValueError, match="refused"):
        ui.at_low_priority(lambda report: (_ for _ in ()).throw(ValueError("refused")))


# In a fresh process: which thread starts the tokenizer's pool is decided once per process; a thread's nice value
# is its own (each thread is a task to Linux), and a thread it starts inherits it.
BORN_LOW = """
import os, sys, threading, time
from bertviz_core import load_encoder
import ui
from ui.warm import prime_thread_pools
encoder = load_encoder(sys.argv[1], device="cpu")
if sys.argv[2] == "primed":
    prime_thread_pools(encoder)
ui.at_low_priority(lambda report: encoder.tokenizer(["a text about a bank"] * 64, padding=True))
time.sleep(1)  # a pool of the finished thread's own (torch's) ends with it
print(sum(os.getpriority(os.PRIO_PROCESS, int(t)) == 19 for t in os.listdir("/proc/self/task")))
"""


@pytest.mark.parametrize("primed", ["primed", "not primed"])
def test_no_thread_pool_is_born_at_the_warm_ups_lowest_priority(tiny_dir: Path, primed: str) -> None:
    """The tokenizer's pool, started by the warm-up's first batch, would keep nice 19 and run visitors' tokenizing
    at the lowest priority: ``prime_thread_pools`` starts it first at the caller's (the check that it would be
    born at nice 19 otherwise keeps the test able to fail)."""
    import os
    import subprocess
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("thread priorities are set on Linux only")
    done = subprocess.run([sys.executable, "-c", BORN_LOW, str(tiny_dir), primed], capture_output=True, text=True,
                          timeout=120, check=True, cwd=Path(__file__).resolve().parents[1],
                          env={**os.environ, "TOKENIZERS_PARALLELISM": "true"})  # the pool exists however run
    lowest = int(done.stdout.split()[-1])
    assert lowest == 0 if primed == "primed" else lowest > 0, done.stderr[-2000:]


def test_a_large_corpus_goes_to_the_worker_process_and_a_small_one_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    import ui

    class Here:
        def embed(self, texts: list[str], progress: object = None) -> str:
            return f"here: {len(texts)}"

    class Worker:
        def run(self, job: str, model: str | None, device: str, texts: tuple[str, ...], progress: object,
                in_memory_up_to: int) -> str:
            return f"worker: {job} {model} {device} {len(texts)} {in_memory_up_to == ui.result_store().budget}"

    monkeypatch.setattr(ui.results, "get_encoder", lambda model, device: Here())
    monkeypatch.setattr(ui.results, "offload", Worker)
    small, large = ("a",) * (ui.LARGE_CORPUS - 1), ("a",) * ui.LARGE_CORPUS
    assert ui.results._sized((ui.BUNDLED_MODEL, "cpu"), "embed", small, None)() == f"here: {len(small)}"
    assert ui.results._sized((ui.BUNDLED_MODEL, "cpu"), "embed", large, None)() == f"worker: embed None cpu {len(large)} True"
    assert ui.results._sized(("/a/folder", "auto"), "token index", large, None)().startswith("worker: token index /a/folder auto")


def test_a_low_priority_run_reports_progress_and_stops_when_its_page_stops() -> None:
    import ui

    batches: list[int] = []

    def run(report) -> str:  # noqa: ANN001 - ui.Progress
        for done in range(1, 51):
            time.sleep(0.05)
            batches.append(done)
            report(done, 50)
        return "done"

    shown: list[tuple[int, int]] = []
    assert ui.at_low_priority(run, lambda done, total: shown.append((done, total))) == "done"
    assert shown[-1] == (50, 50) and shown == sorted(shown)

    class Stopped(Exception):  # what Streamlit raises in the page's thread at a progress call once a tab closed
        pass

    def bar(done: int, total: int) -> None:
        if done >= 5:
            raise Stopped

    batches.clear()
    with pytest.raises(Stopped):
        ui.at_low_priority(run, bar)
    time.sleep(0.5)  # the run sees the stop at its next report
    assert 5 <= len(batches) < 15
