"""The class server's processes share the cores they may use (as `nproc` counts them): each one's thread pools get
cores // processes threads, at least one, unless the operator's environment sets a pool's size itself."""
from __future__ import annotations

import pytest

from bertviz_core.runtime import class_server
from bertviz_core.runtime.class_server import SPIN_VARIABLES, THREAD_VARIABLES, main, server_env, thread_share


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


def test_every_process_gets_blas_threads_that_sleep_soon_and_a_share_only_when_it_shares(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    for name in (*THREAD_VARIABLES, *SPIN_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(class_server.os, "sched_getaffinity", lambda pid: set(range(4)), raising=False)
    assert server_env(1) == {"OPENBLAS_THREAD_TIMEOUT": "4"}  # make run: the libraries' own pool sizes
    assert server_env(2) == dict.fromkeys(THREAD_VARIABLES, "2") | {"OPENBLAS_THREAD_TIMEOUT": "4"}
    assert main(["--workers", "1", "--env"]) == 0  # what make run passes to streamlit, one NAME=value a line
    assert capsys.readouterr().out.split() == ["OPENBLAS_THREAD_TIMEOUT=4"]
    monkeypatch.setenv("OPENBLAS_THREAD_TIMEOUT", "10")  # the operator's choice is kept
    assert server_env(1) == {}
    assert main(["--workers", "2", "--env"]) == 0
    assert capsys.readouterr().out.split() == [f"{name}=2" for name in THREAD_VARIABLES]
