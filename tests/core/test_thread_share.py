"""The class server's processes share the cores they may use (as `nproc` counts them): each one's thread pools get
cores // processes threads, at least one, unless the operator's environment sets a pool's size itself."""
from __future__ import annotations

import pytest

from bertviz_core.runtime import class_server
from bertviz_core.runtime.class_server import THREAD_VARIABLES, thread_share


@pytest.mark.parametrize(("cores", "workers", "share"), [(2, 1, "2"), (2, 2, "1"), (16, 4, "4"), (8, 3, "2"),
                                                         (2, 5, "1"), (None, 2, "1")])
def test_each_process_gets_its_share_of_the_cores(monkeypatch: pytest.MonkeyPatch, cores: int | None, workers: int,
                                                  share: str) -> None:
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(class_server.os, "sched_getaffinity", lambda pid: set(range(cores or 1)), raising=False)
    monkeypatch.setattr(class_server.os, "cpu_count", lambda: cores)
    assert thread_share(workers) == dict.fromkeys(THREAD_VARIABLES, share)


def test_a_size_the_environment_sets_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.setattr(class_server.os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert thread_share(2) == {"OPENBLAS_NUM_THREADS": "4", "MKL_NUM_THREADS": "4"}
