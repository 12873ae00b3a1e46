"""A worker process killed mid-job (issue #53, item 1): every page that sends a large upload to the worker
(``bertviz_core.runtime.offload``) says that the worker stopped, in its own message, rather than Streamlit's exception
box under a bar that no longer moves. That the next job starts a new worker is tests/core/test_offload.py's."""
from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest
from page_checks import checks
from test_uploads import SENTENCES, every_kind, open_upload

import ui.results
from bertviz_core.runtime.offload import Offload
from bertviz_core.views.page_registry import PAGES, PageEntry


class KilledMidJob(Offload):
    """The server's worker, killed with SIGKILL (as the kernel's out-of-memory killer would) when it first says
    what it is doing (it is about to load the model, a second or more), the first ``kills`` times it runs a job.
    Not at its first progress report: a 13-text job reports once, as its only batch ends, and its result may be
    in the pipe before the kill lands, which the caller rightly takes as a finished job."""

    def __init__(self, kills: int) -> None:
        super().__init__(idle_seconds=600)
        self.kills = kills

    def run(self, job: str, model: str | None, device: str, texts: Any, progress: Any = None, **options: Any) -> Any:
        def killing(done: int, total: int) -> None:
            if progress is not None:
                progress(done, total)

        def stage(text: str) -> None:
            if self.kills and self.pid is not None:  # a message from the worker, not "starting the worker"
                self.kills -= 1
                os.kill(self.pid, signal.SIGKILL)
            if hasattr(progress, "stage"):
                progress.stage(text)
        killing.stage = stage  # type: ignore[attr-defined]  # Offload.run tells a progress's stage method
        return super().run(job, model, device, texts, killing, **options)


@pytest.fixture
def killed_once(monkeypatch: pytest.MonkeyPatch) -> Iterator[KilledMidJob]:
    """Every upload of the tests' 13 texts goes to a worker (``LARGE_CORPUS`` lowered), whose first job is killed."""
    worker = KilledMidJob(kills=1)
    monkeypatch.setattr(ui.results, "LARGE_CORPUS", 8)
    monkeypatch.setattr(ui.results, "offload", lambda: worker)
    yield worker
    worker.stop()


UPLOADING = [entry for entry in PAGES if checks(entry).uploader]


@pytest.mark.parametrize("entry", UPLOADING, ids=[entry.url_path for entry in UPLOADING])
@pytest.mark.slow
def test_a_worker_killed_mid_job_says_so_on_the_page(
        killed_once: KilledMidJob, entry: PageEntry) -> None:
    check = checks(entry)
    source, uploader = check.uploader
    at = open_upload(entry.file, source, dict(check.upload_settings))
    texts = [f"{text} On {entry.title}." for text in SENTENCES]  # not pooled by another page's test before
    at.file_uploader(key=uploader).set_value(("rows.csv", every_kind(texts), "text/csv")).run()
    assert killed_once.kills == 0, f"{entry.file} sent no job to the worker"
    assert not at.exception, at.exception
    assert any("stopped before it finished" in error.value for error in at.error), [e.value for e in at.error]
    assert not at.get("progress")  # no bar left standing still above the message
