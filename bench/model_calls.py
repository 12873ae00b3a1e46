"""Model runs on reruns: zero when only a layer, strategy, metric, token or correction changes.

    .venv/bin/python bench/model_calls.py

Counts every forward pass (Encoder._forward, behind encode, embed and word_vectors) while AppTest
drives each page of the page registry: its first render, then the setting changes its test module's checks
name (tests/page_checks.py); a page without checks stops the bench, so a new page cannot be left out. tests/
asserts the same counts. Then each page that reads stores on a precomputed store, its store view's settings
changed (declared in the same modules). Then the same for uploads whose results exceed the shared store's memory budget
(BERTVIZ_CACHE_MB=1 here): kept memory-mapped from disk, they are not computed again on a setting change. Last, Why
similar's attributions (``pair_attribution``, counted apart: its passes are not ``Encoder._forward``): a second
session opening the same view, and two sessions asking for one attribution at once, run none again.

    .venv/bin/python bench/model_calls.py attributions   # that part alone
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from call_counter import counting_model_runs  # noqa: E402
from stores import topics_store  # noqa: E402
from page_checks import UPLOAD, Setting, checks, make  # noqa: E402
from tiny_models import save_tiny_bert  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from bertviz_core.views.page_registry import PAGES  # noqa: E402
from bertviz_core.precompute.offered import SETTING  # noqa: E402

# Uploads larger than a 1 MiB store, on every page with an uploader (its settings changed after): 40 rows give a
# 2 MiB token index on Similar contexts and 3.4 MiB of pooled vectors on Task measures. 600 rows are a large
# corpus (ui.LARGE_CORPUS), encoded in the worker process, whose jobs are counted.
ROWS = [f"Row {i} the boat drifted past the river bank at dawn while herons waited" for i in range(40)]
LARGE = [f"Row {i} the heron waited by the bank of the slow river" for i in range(600)]
ASKED = ("The cat sat on the mat, said the teacher of room 53.", "A dog lay on the rug, wrote the pupil.")


def main() -> None:
    if sys.argv[1:] == ["attributions"]:
        return attributions()
    try:
        page_checks = {entry.file: checks(entry) for entry in PAGES}  # each page's test module names its settings
    except LookupError as missing:
        raise SystemExit(str(missing)) from None
    print(f"{'page':36} {'first render':>13} {'setting changes':>16} {'model runs on them':>19}")
    with tempfile.TemporaryDirectory() as folder, counting_model_runs() as runs:
        mlm = str(save_tiny_bert(Path(folder), heads=12, mlm=True))
        for entry in PAGES:
            model = mlm if page_checks[entry.file].needs_mlm_head else None
            measure(entry.file, entry.title, page_checks[entry.file].settings, runs, model)
        print(f"\nOn a precomputed store (the built-in corpus, precomputed; {SETTING} lists it):")
        os.environ[SETTING] = topics_store(Path(folder))
        for entry in (entry for entry in PAGES if entry.reads_stores):
            measure(entry.file, f"{entry.title} on a store", page_checks[entry.file].store_settings, runs,
                    first_steps=page_checks[entry.file].store_view)
        del os.environ[SETTING]
        os.environ["BERTVIZ_CACHE_MB"] = "1"
        import ui

        ui.result_store.clear()
        print("\nUploads larger than the store's memory budget (BERTVIZ_CACHE_MB=1, so kept on disk):")
        for entry in PAGES:
            if (uploader := page_checks[entry.file].uploader) is None:
                continue
            for rows in (ROWS, LARGE):
                csv = "text,label\n" + "\n".join(f"{row},{i % 2}" for i, row in enumerate(rows))
                upload = [("radio", uploader[0], UPLOAD),
                          ("file_uploader", uploader[1], ("big.csv", csv.encode(), "text/csv"))]
                measure(entry.file, f"{entry.title} upload, {len(rows):,} rows", page_checks[entry.file].settings,
                        runs, first_steps=upload)
        store = ui.result_store()
        print(f"kept on disk: {store.on_disk / 2**20:.1f} MiB, over a memory budget of {store.budget / 2**20:.0f} MiB")
        del os.environ["BERTVIZ_CACHE_MB"]
        ui.result_store.clear()
    attributions()


@contextmanager
def counting_attributions() -> Iterator[list[tuple[str, str]]]:
    """Record every ``attribution.pair_attribution`` computed while the block runs (its two texts); restored after."""
    import bertviz_core.measures.attribution as module

    computed, runs = module.pair_attribution, []

    def counted(encoder: Any, first: str, second: str, *args: Any, **kwargs: Any) -> Any:
        runs.append((first, second))
        return computed(encoder, first, second, *args, **kwargs)

    module.pair_attribution = counted
    try:
        yield runs
    finally:
        module.pair_attribution = computed


def attributions() -> None:
    """Why similar's attributions: a session's first render, a second session opening the same view, and two
    sessions asking for one new attribution at the same moment (each on its own thread, as the server runs them)."""
    from bertviz_core.model.models import BUNDLED_MODEL
    from ui.page_parts.why_similar import attribution

    os.environ["BERTVIZ_WARM_UP"] = "0"  # the background warm-up's own runs would land in the counts

    print(f"\nWhy similar's attributions (pair_attribution), 2 steps:\n{'':36} {'attributions computed':>22}")
    with counting_attributions() as runs:
        for session in ("first session", "second session, same view"):
            runs.clear()
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
            at.query_params["wy_steps"] = "2"
            at.switch_page("pages/why_similar.py").run()
            assert not at.exception, at.exception
            print(f"{session:36} {len(runs):22}")
        runs.clear()
        together = threading.Barrier(2)

        def session() -> None:
            together.wait()
            attribution((BUNDLED_MODEL, "cpu"), *ASKED, "mean", 6, 4, 2, "[PAD]", False, report=lambda *_: None)

        sessions = [threading.Thread(target=session) for _ in range(2)]
        for thread in sessions:
            thread.start()
        for thread in sessions:
            thread.join()
        print(f"{'two sessions at once, one pair':36} {len(runs):22}")


def measure(file: str, title: str, changes: Sequence[Setting], runs: list[int],
            model: str | None = None, first_steps: Sequence[Setting] = ()) -> None:
    """Open ``file`` in AppTest (on ``model``, a local folder, when given), make ``first_steps`` (e.g. an upload,
    counted with the first render), then ``changes`` one by one, and print the model runs before and on them."""
    runs.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    if model is not None:
        at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
        at.sidebar.text_input(key="custom_model").set_value(model).run()
    at.switch_page(file).run()
    for setting in first_steps:
        make(at, setting)
    first = len(runs)
    for setting in changes:
        make(at, setting)
        assert not at.exception, at.exception
    print(f"{title:36} {first:13} {len(changes):16} {len(runs) - first:19}")


if __name__ == "__main__":
    main()
