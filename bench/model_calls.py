"""Model runs on reruns: zero when only a layer, strategy, metric, token or correction changes.

    .venv/bin/python bench/model_calls.py

Counts every forward pass (Encoder._forward, behind encode, embed and word_vectors) while AppTest
drives each page of the page registry: its first render, then a series of setting changes. A page
without an entry in CHANGES stops the bench, so a new page cannot be left out. tests/ asserts the
same counts. Then the same for an upload whose results exceed the shared store's memory budget
(BERTVIZ_CACHE_MB=1 here): kept memory-mapped from disk, they are not computed again on a setting change.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from call_counter import counting_model_runs  # noqa: E402
from tiny_models import save_tiny_bert  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from bertviz_core.page_registry import PAGES  # noqa: E402

CHANGES = {  # page's URL path: [(widget kind, key, value), ...] settings that must not run the model
    "": [],  # the overview has no settings
    "tokenization": [("toggle", "tok_pad", True), ("number_input", "tok_T", 40),
                     ("session_state", "tok_tab", "Vocabulary"), ("toggle", "voc_re", True)],
    "layer_values": [("slider", "lv_layer", 2), ("selectbox", "lv_token", 3), ("radio", "lv_scope", "all tokens"),
                     ("slider", "lv_k", 2.5)],
    "attention": [("slider", "at_layer", 3), ("multiselect", "at_heads", [2, 5]), ("selectbox", "at_token", 4),
                  ("session_state", "at_tab", "Statistics"), ("session_state", "at_tab", "From one token")],
    "masked_words": [("slider", "mw_layer", 3), ("slider", "mw_k", 4), ("slider", "mw_layer", 12)],
    "word_similarity": [("selectbox", "ws_strategy", "layer 2"), ("selectbox", "ws_metric", "dot product"),
                        ("selectbox", "ws_sub", "first"), ("radio", "ws_score", "gap")],
    "similar_contexts": [("slider", "sc_layer_left", 2), ("slider", "sc_layer_right", 4), ("slider", "sc_k", 5),
                         ("selectbox", "sc_metric", "dot product"), ("selectbox", "sc_token", 4),
                         ("selectbox", "sc_strategy", "max"), ("radio", "sc_adjusted", "adjusted")],
    "sentence_pooling": [("multiselect", "sp_layers", [1, 2]), ("multiselect", "sp_strats", ["max", "cls"])],
    # its other tabs encode other texts (the scored pairs) when first opened: new input, not a setting
    "task_measures": [("radio", "tm_probe_score", "macro-F1"), ("selectbox", "tm_probe_cell", "max · layer 2"),
                      ("multiselect", "tm_layers", [1, 2, 3]), ("multiselect", "tm_strats", ["mean", "max"])],
    "compare_sentences": [("slider", "cs_layer", 2), ("selectbox", "cs_strategy", "max"),
                          ("selectbox", "cs_metric", "euclidean distance"), ("radio", "cs_correct", "whitening"),
                          ("selectbox", "cs_query", 2)],
}
# Pages that show their numbers only for a kind of model the bundled one is not: a tiny random one of that kind
# is loaded first (its first render is counted, its setting changes must run no model).
NEEDS_MLM_HEAD = {"masked_words"}
# Uploads larger than a 1 MiB store (page file, source radio, uploader, CSV, setting changes): 40 rows give a
# 2 MiB token index on Similar contexts and 3.4 MiB of pooled vectors on Task measures.
# The 600-row upload is a large corpus (ui.LARGE_CORPUS): encoded in the worker process, whose jobs are counted.
ROWS = [f"Row {i} the boat drifted past the river bank at dawn while herons waited" for i in range(40)]
LARGE = [f"Row {i} the heron waited by the bank of the slow river" for i in range(600)]
BIG_UPLOADS = [
    ("pages/similar_contexts.py", "sc_source", "sc_upload", "text\n" + "\n".join(ROWS),
     [("slider", "sc_k", 5), ("slider", "sc_layer_left", 2), ("selectbox", "sc_metric", "dot product")]),
    ("pages/similar_contexts.py", "sc_source", "sc_upload", "text\n" + "\n".join(LARGE),
     [("slider", "sc_k", 5), ("slider", "sc_layer_left", 2), ("selectbox", "sc_metric", "dot product")]),
    ("pages/task_measures.py", "tm_source", "tm_upload",
     "text,label\n" + "\n".join(f"{row},{i % 2}" for i, row in enumerate(ROWS)),
     [("radio", "tm_probe_score", "macro-F1"), ("multiselect", "tm_layers", [1, 2, 3])]),
]


def main() -> None:
    missing = [entry.file for entry in PAGES if entry.url_path not in CHANGES]
    if missing:
        raise SystemExit(f"bench/model_calls.py lists no setting changes for {', '.join(missing)}: add them to CHANGES.")
    print(f"{'page':36} {'first render':>13} {'setting changes':>16} {'model runs on them':>19}")
    with tempfile.TemporaryDirectory() as folder, counting_model_runs() as runs:
        mlm = str(save_tiny_bert(Path(folder), heads=12, mlm=True))
        for entry in PAGES:
            model = mlm if entry.url_path in NEEDS_MLM_HEAD else None
            measure(entry.file, entry.title, CHANGES[entry.url_path], runs, model)
        os.environ["BERTVIZ_CACHE_MB"] = "1"
        import ui

        ui.result_store.clear()
        print("\nUploads larger than the store's memory budget (BERTVIZ_CACHE_MB=1, so kept on disk):")
        for file, source, uploader, csv, changes in BIG_UPLOADS:
            title = next(entry.title for entry in PAGES if entry.file == file)
            upload = [("radio", source, "Upload a CSV"),
                      ("file_uploader", uploader, ("big.csv", csv.encode(), "text/csv"))]
            measure(file, f"{title} upload, {csv.count(chr(10)):,} rows", changes, runs, first_steps=upload)
        store = ui.result_store()
        print(f"kept on disk: {store.on_disk / 2**20:.1f} MiB, over a memory budget of {store.budget / 2**20:.0f} MiB")


def measure(file: str, title: str, changes: list[tuple[str, str, object]], runs: list[int],
            model: str | None = None, first_steps: list[tuple[str, str, object]] = ()) -> None:
    """Open ``file`` in AppTest (on ``model``, a local folder, when given), make ``first_steps`` (e.g. an upload,
    counted with the first render), then ``changes`` one by one, and print the model runs before and on them."""
    runs.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    if model is not None:
        at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
        at.sidebar.text_input(key="custom_model").set_value(model).run()
    at.switch_page(file).run()
    for kind, key, value in first_steps:
        getattr(at, kind)(key=key).set_value(value).run()
    first = len(runs)
    for kind, key, value in changes:
        if kind == "session_state":  # a lazy tab: AppTest opens it through its key
            at.session_state[key] = value
            at.run()
        else:
            getattr(at, kind)(key=key).set_value(value).run()
        assert not at.exception, at.exception
    print(f"{title:36} {first:13} {len(changes):16} {len(runs) - first:19}")


if __name__ == "__main__":
    main()
