"""The shared result store: results over the memory budget are kept memory-mapped from disk, so a page never
recomputes them (never runs the model again) when only a setting changes."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import open_page
from streamlit.testing.v1 import AppTest

import ui
from bertviz_core.runtime import store as results
from bertviz_core.measures.attention import summarize, token_roles
from bertviz_core.model.encoder import Encoder
from bertviz_core.model.token_index import TokenIndex, token_index

RIVER = [f"Row {i}: the boat drifted past the river bank at dawn while herons waited." for i in range(40)]


def test_a_result_over_the_memory_budget_is_kept_on_disk_and_one_over_both_is_not(tmp_path) -> None:  # noqa: ANN001
    store = results.ByteBoundedStore(budget=1000, disk_budget=10_000, folder=str(tmp_path))
    small = {"x": np.arange(30, dtype=np.float32)}  # 120 bytes
    assert store.put("small", small) is small and store.used == 120
    big = {"x": np.arange(1000, dtype=np.float32)}  # 4,000 bytes
    kept = store.put("big", big)
    assert isinstance(kept["x"], np.memmap) and not kept["x"].flags.writeable
    np.testing.assert_array_equal(kept["x"], big["x"])
    assert store.get("big") is kept and store.used == 120 and store.on_disk == 4000 and len(store) == 2
    assert list(tmp_path.iterdir()) == []  # the file has no name: nothing outlives the server
    assert store.put("huge", {"x": np.zeros(3000, dtype=np.float32)}) is None and store.get("huge") is None
    for i in range(3):  # 12,000 bytes of new results: the least recently used is dropped from the disk too
        store.put(("more", i), {"x": np.full(1000, i, dtype=np.float32)})
    assert store.get("big") is None and store.on_disk <= 10_000


def test_every_kind_of_result_goes_to_disk_and_back_unchanged(bundled: Encoder, tmp_path) -> None:  # noqa: ANN001
    texts = ["The bank raised its rates.", "We sat on the river bank."]
    kinds = {
        "pooled corpus": bundled.embed(texts),
        "encodings": bundled.encode(texts),
        "attention weights": [np.random.default_rng(0).random((2, 3, 4, 4), dtype=np.float32)],
        "token index": token_index(bundled, tuple(texts)),
        "attention summary": summarize(bundled.attentions(texts[:1])[0], token_roles(
            bundled.inputs(texts[:1])[0].tokens, bundled.tokenizer.cls_token, bundled.tokenizer.sep_token)),
    }
    for kind, value in kinds.items():
        mapped = results.map_arrays(value, lambda array: results.to_disk(array, str(tmp_path)))
        before, after = results.arrays(value), results.arrays(mapped)
        assert len(before) == len(after) > 0, kind
        for a, b in zip(before, after):
            assert isinstance(b, np.memmap) and b.dtype == a.dtype, kind
            np.testing.assert_array_equal(a, b, err_msg=kind)
        assert results.nbytes(mapped) == results.nbytes(value), kind
    assert isinstance(results.map_arrays(kinds["token index"], np.asarray), TokenIndex)


@pytest.fixture
def one_mib_store(monkeypatch: pytest.MonkeyPatch, tmp_path):  # noqa: ANN001, ANN201
    """A fresh process-wide store of 1 MiB in memory (the pages' uploads below take more), spilling to ``tmp_path``."""
    monkeypatch.setenv("BERTVIZ_CACHE_MB", "1")
    monkeypatch.setenv("BERTVIZ_SPILL_DIR", str(tmp_path))
    ui.result_store.clear()
    yield ui.result_store()
    ui.result_store.clear()


def upload(at: AppTest, source: str, uploader: str, csv: str) -> None:
    at.radio(key=source).set_value("Upload a CSV").run()
    at.file_uploader(key=uploader).set_value(("big.csv", csv.encode(), "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]


@pytest.mark.slow
def test_similar_contexts_keeps_an_index_over_the_budget_and_never_rebuilds_it(one_mib_store, model_calls) -> None:  # noqa: ANN001
    at = open_page("pages/similar_contexts.py")
    upload(at, "sc_source", "sc_upload", "text\n" + "\n".join(RIVER))
    assert one_mib_store.on_disk > one_mib_store.budget  # the index is larger than the memory budget
    before = len(model_calls)
    for kind, key, value in [("slider", "sc_k", 5), ("slider", "sc_layer_left", 2), ("selectbox", "sc_metric",
                                                                                      "dot product")]:
        getattr(at, kind)(key=key).set_value(value).run()
        assert not at.exception, at.exception
    assert len(model_calls) == before  # no model run on any of the setting changes


@pytest.mark.slow
def test_task_measures_keeps_pooled_vectors_over_the_budget_and_never_recomputes_them(one_mib_store,  # noqa: ANN001
                                                                                       model_calls) -> None:  # noqa: ANN001
    at = open_page("pages/task_measures.py")
    rows = [f"{text},{'rivers' if i % 2 else 'boats'}" for i, text in enumerate(t.replace(":", "") for t in RIVER)]
    upload(at, "tm_source", "tm_upload", "text,label\n" + "\n".join(rows))
    assert one_mib_store.on_disk > one_mib_store.budget
    before = len(model_calls)
    at.radio(key="tm_probe_score").set_value("macro-F1").run()
    at.multiselect(key="tm_layers").set_value([1, 2]).run()
    assert not at.exception and len(model_calls) == before
