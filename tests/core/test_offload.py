"""The low-priority worker process for large corpora (``bertviz_core.runtime.offload``): the same numbers as the
same job run here, on every architecture of the family fixture; its priority, cancelling, failures, results
over the memory budget, and the idle exit."""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import BASE_NAMES, same_result, until

from bertviz_core import Encoder
from bertviz_core.measures.pooling_grid import Cell
from bertviz_core.measures.task_measures import probe_plan
from bertviz_core.runtime.offload import JOBS, Offload
from bertviz_core.runtime.store import ByteBoundedStore

# Every test here runs jobs in a worker process that loads a model of its own: make test-fast leaves them out.
pytestmark = pytest.mark.slow
TEXTS = ("The bank raised its rates.", "We sat on the river bank.", "Ein Satz auf Deutsch, mit Umlauten: äöü.",
         "A much longer sentence " + "with many more words " * 12, "short")
LABELS = ["money", "river", "river", "money", "river"]
SETTINGS: dict[str, tuple[Any, ...]] = {  # each job's own settings (its ``extra``); a new job needs its entry here
    "embed": (), "token index": (), "encode": (), "kept embed": (), "kept token index": (), "contextuality": (),
    "pooling cell": (Cell("mean", 1), LABELS), "probe cell": (Cell("cls", 1), LABELS, probe_plan(LABELS)),
    "attribution": ("mean", None, 4, "[PAD]", None, False), "maxsim": (1, False),
}


@pytest.fixture(scope="module")
def worker():  # noqa: ANN201 - an Offload
    offload = Offload(idle_seconds=600)
    yield offload
    offload.stop()


def test_every_job_has_its_settings_here() -> None:
    assert set(SETTINGS) == set(JOBS)


@pytest.mark.parametrize("job", list(JOBS))
def test_every_job_in_the_worker_equals_the_same_job_here_on_every_architecture(
        worker: Offload, job: str, family_dirs: dict[str, Path], family_encoders: dict[str, Encoder],
        bundled: Encoder) -> None:
    texts, extra = (TEXTS[:2] if job in ("attribution", "maxsim") else TEXTS), SETTINGS[job]  # those take a pair
    for name in BASE_NAMES:  # each architecture once: the -mlm twins load as their bases do (test_model_family)
        there = worker.run(job, str(family_dirs[name]), "cpu", texts, extra=extra)
        same_result(JOBS[job](family_encoders[name], texts, None, *extra), there)
    same_result(JOBS[job](bundled, texts, None, *extra), worker.run(job, None, "cpu", texts, extra=extra))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="scheduling policies read on Linux only")
def test_the_worker_and_its_threads_run_under_the_idle_policy_and_the_caller_keeps_its_own(worker: Offload) -> None:
    worker.run("embed", None, "cpu", TEXTS[:1])
    threads = list(Path(f"/proc/{worker.pid}/task").iterdir())
    assert len(threads) > 1  # torch's and the libraries' threads too, born after the policy was set
    assert {os.sched_getscheduler(int(thread.name)) for thread in threads} == {os.SCHED_IDLE}
    assert os.sched_getscheduler(0) != os.SCHED_IDLE


def _state(pid: int) -> str:
    """A process's state letter from /proc: T while stopped."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process states and the parent's death on Linux")
def test_a_pausable_worker_stops_where_it_stands_goes_on_to_the_same_result_and_ends_with_its_thread(
        bundled: Encoder) -> None:
    paused, result = Offload(pausable=True, idle_seconds=600), {}
    corpus = TEXTS * 30
    starter = threading.Thread(target=lambda: result.update(value=paused.run("embed", None, "cpu", corpus)))
    starter.start()
    assert until(lambda: paused.pid is not None)
    assert b"OMP_NUM_THREADS=1\x00" in Path(f"/proc/{paused.pid}/environ").read_bytes()  # one core at most
    paused.pause()
    assert until(lambda: _state(paused.pid) == "T")  # stopped once the scheduler next runs it
    # a stopped worker takes no CPU: its clock stands still
    ticks = Path(f"/proc/{paused.pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13]
    time.sleep(0.5)
    assert Path(f"/proc/{paused.pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13] == ticks
    paused.resume()
    assert _state(paused.pid) != "T"
    starter.join(120)
    same_result(JOBS["embed"](bundled, corpus, None), result["value"])
    assert until(lambda: paused.pid is None)  # its starting thread has ended: so has the worker


def test_progress_reaches_the_caller_and_a_stopped_caller_cancels_the_job_within_a_batch(worker: Offload) -> None:
    corpus = TEXTS * 40  # 200 texts: several batches
    shown: list[tuple[int, int]] = []
    worker.run("embed", None, "cpu", corpus, lambda done, total: shown.append((done, total)))
    assert shown[0] == (0, len(corpus)) and shown[-1] == (len(corpus), len(corpus)) and shown == sorted(shown)

    class Stopped(Exception):  # what Streamlit raises in the page's thread at a progress call once a tab closed
        pass

    def bar(done: int, total: int) -> None:
        if done > 0:
            raise Stopped

    shown.clear()
    with pytest.raises(Stopped):
        worker.run("embed", None, "cpu", corpus * 10, bar)
    started = time.perf_counter()
    result = worker.run("embed", None, "cpu", TEXTS, lambda done, total: shown.append((done, total)))
    assert time.perf_counter() - started < 60  # the cancelled job did not run on through its 2,000 texts first
    assert shown == [(0, len(TEXTS)), (len(TEXTS), len(TEXTS))] and result["mean"].shape[0] == len(TEXTS)


def test_a_result_over_the_memory_budget_comes_back_mapped_read_only_and_the_store_keeps_it_so(
        worker: Offload) -> None:
    in_memory = worker.run("token index", None, "cpu", TEXTS)
    mapped = worker.run("token index", None, "cpu", TEXTS, in_memory_up_to=in_memory.vectors.nbytes - 1)
    assert not isinstance(in_memory.vectors, np.memmap) and in_memory.vectors.flags.writeable
    assert isinstance(mapped.vectors, np.memmap) and not mapped.vectors.flags.writeable
    np.testing.assert_array_equal(mapped.vectors, in_memory.vectors)
    store = ByteBoundedStore(budget=1, disk_budget=1 << 30)
    assert store.put("index", mapped).vectors is mapped.vectors  # already on disk: not copied again


def test_failures_come_back_as_value_errors_and_a_dead_worker_is_replaced(worker: Offload, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no config.json"):
        worker.run("embed", str(tmp_path), "cpu", TEXTS)
    with pytest.raises(ValueError, match="Unknown job 'fly'"):
        worker.run("fly", None, "cpu", TEXTS)
    with pytest.raises(ValueError, match="texts must all be strings"):
        worker.run("embed", None, "cpu", [1, 2])  # checked here, before the worker sees it

    def kill(done: int, total: int) -> None:
        if 0 < done < total and worker.pid is not None:
            os.kill(worker.pid, 9)  # as the kernel's out-of-memory killer would, mid-job

    with pytest.raises(ValueError, match="worker .* stopped before it finished"):
        worker.run("embed", None, "cpu", TEXTS * 40, kill)
    assert worker.run("embed", None, "cpu", TEXTS)["mean"].shape[0] == len(TEXTS)


def test_an_idle_worker_exits_and_the_next_job_starts_another_telling_the_bar_each_step() -> None:
    """The idle exit, then what a bar with a ``stage`` method is told: a 2,737-row upload's bar read "0 of 2,737
    texts" for 20 s while the worker started, loaded the model and tokenized (#51). Each step comes in order before
    the first count moves; a plain progress gets the counts alone."""
    offload, seen = Offload(idle_seconds=0.5), []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))

    progress.stage = seen.append  # type: ignore[attr-defined]
    try:
        offload.run("embed", None, "cpu", TEXTS[:1], lambda done, total: seen.append((done, total)))
        assert seen == [(0, 1), (1, 1)]
        first = offload.pid
        assert first is not None
        assert until(lambda: offload.pid is None, 30)
        seen.clear()
        offload.idle_seconds = 600  # the worker the next job starts stays for the job after it
        assert offload.run("embed", None, "cpu", TEXTS, progress)["mean"].shape[0] == len(TEXTS)
        assert offload.pid != first
        assert seen == [(0, 5), "starting the worker process", "loading the model",
                        "tokenizing 5 texts, then running the first batch (the longest)", (5, 5)]
        seen.clear()
        offload.run("embed", None, "cpu", TEXTS[:2], progress)  # the worker runs and holds the model already
        assert seen == [(0, 2), "tokenizing 2 texts, then running the first batch (the longest)", (2, 2)]
    finally:
        offload.stop()
