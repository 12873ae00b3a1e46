"""The "Precomputed store" corpus source (issue #30) on every page that reads stores: offered only when the server
lists stores, its nearest sentences equal a brute-force search of the store's vectors and its teaching code prints
them, settings run no model but the query's, and each store that cannot be used says why."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import open_page, table

from bertviz_core import Encoder, recipes
from bertviz_core.corpora.corpus_sources import CORPUS_SOURCES, source_labels
from bertviz_core.views.page_registry import PAGES
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.precompute.offered import SETTING
from bertviz_core.measures.similarity import METRICS

STORE_PAGES = [entry for entry in PAGES if entry.reads_stores]
PAGE = "pages/similar_contexts.py"
SENTENCE = "The markets rallied after the central bank cut rates."


def test_a_store_is_offered_only_where_a_page_reads_it_and_the_server_lists_one(
        monkeypatch: pytest.MonkeyPatch, news_store) -> None:  # noqa: ANN001
    assert STORE_PAGES, "no page reads stores"
    stores = [name for name, source in CORPUS_SOURCES.items() if source.store]
    for entry in (entry for entry in PAGES if entry.built_in_corpus):
        assert not set(stores) & set(source_labels(entry.built_in_corpus, entry.reads_stores))
    monkeypatch.setenv(SETTING, str(news_store.folder))
    for entry in (entry for entry in PAGES if entry.built_in_corpus):
        offered = set(source_labels(entry.built_in_corpus, entry.reads_stores))
        assert (set(stores) <= offered) == entry.reads_stores, entry.title


def open_store_page(monkeypatch: pytest.MonkeyPatch, folders: list[Path]):  # noqa: ANN201 - an AppTest
    monkeypatch.setenv(SETTING, ",".join(map(str, folders)))
    at = open_page(PAGE)
    at.radio(key="sc_source").set_value("Precomputed store").run()
    return at


def test_the_nearest_stored_sentences_are_a_brute_force_search_and_the_code_prints_them(
        monkeypatch: pytest.MonkeyPatch, news_store, bundled: Encoder, model_calls: list[int]) -> None:  # noqa: ANN001
    at = open_store_page(monkeypatch, [news_store.folder])
    at.text_input(key="sc_text").set_value(SENTENCE).run()
    vectors = np.asarray(news_store.vectors("mean", 6))
    query = bundled.embed([SENTENCE], ["mean"])["mean"][0, 6]
    runs = len(model_calls)
    for k, metric in ((4, "euclidean distance"), (7, "dot product"), (10, "cosine")):  # cosine through the index
        at.slider(key="sc_k").set_value(k).run()
        at.selectbox(key="sc_metric").set_value(metric).run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        shown = table(at, "sc_sentences")
        scores = METRICS[metric].between(vectors, query[None])[:, 0]
        order = np.argsort(-scores if METRICS[metric].similar_high else scores, kind="stable")[:k]
        assert shown["text"].tolist() == [news_store.texts[i] for i in order]
        np.testing.assert_allclose(shown["score"].to_numpy(float), scores[order], rtol=1e-3, atol=1e-3)  # 3 decimals
        code = recipes.store_sentences(bundled.info, str(news_store.folder), "mean@6", SENTENCE,
                                       POOLINGS["mean"].code, 6, k, metric)
        ran: dict = {}
        exec(code, ran)  # noqa: S102 - the teaching panel's own code
        assert list(ran["nearest"]) == order.tolist()
    assert len(model_calls) == runs  # the query was embedded once; k and metric changes read the store
    assert any("Approximate search over 160 stored sentences" in c.value.replace("\\", "") for c in at.caption)


def test_a_stored_copy_of_the_sentence_is_left_out(monkeypatch: pytest.MonkeyPatch, news_store) -> None:  # noqa: ANN001
    at = open_store_page(monkeypatch, [news_store.folder])
    at.text_input(key="sc_text").set_value(news_store.texts[3]).run()
    shown = table(at, "sc_sentences")
    assert len(shown) == 10 and news_store.texts[3] not in shown["text"].tolist()


@pytest.mark.slow
def test_a_link_cannot_open_an_unlisted_folder(monkeypatch: pytest.MonkeyPatch, news_store) -> None:  # noqa: ANN001
    monkeypatch.setenv(SETTING, str(news_store.folder))
    at = open_page(PAGE)
    at.query_params["sc_store"] = "/etc"
    at.radio(key="sc_source").set_value("Precomputed store").run()
    assert not at.exception and at.selectbox(key="sc_store").value == "news"
    assert any("names the store /etc, which this server does not offer" in w.value.replace("\\", "")
               for w in at.warning)


@pytest.mark.slow
def test_a_store_that_cannot_be_used_says_why(monkeypatch: pytest.MonkeyPatch, news_store, tmp_path: Path,
                                              tiny_dir: Path) -> None:  # noqa: ANN001
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    (stopped / "plan.json").write_text("{}")
    at = open_store_page(monkeypatch, [stopped, news_store.folder])
    assert any("is not a finished store" in e.value for e in at.error) and not at.exception
    damaged = tmp_path / "damaged"
    shutil.copytree(news_store.folder, damaged)
    vectors = damaged / "vectors" / "mean@6.npy"
    vectors.write_bytes(vectors.read_bytes()[:-4096])
    at = open_store_page(monkeypatch, [damaged])
    assert any("the store is damaged" in e.value for e in at.error) and not at.exception
    at = open_store_page(monkeypatch, [news_store.folder])
    at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
    at.sidebar.text_input(key="custom_model").set_value(str(tiny_dir)).run()
    said = [w.value.replace("\\", "") for w in at.warning]
    assert any("was computed with **all-MiniLM-L6-v2 (bundled)**; this session uses **tiny" in w for w in said)
    at.button[0].click().run()  # the offered switch back to the store's model
    assert not at.warning and len(table(at, "sc_sentences")) == 10


def test_a_token_is_searched_among_the_stored_tokens_at_the_stored_layers(
        monkeypatch: pytest.MonkeyPatch, news_store, bundled: Encoder, model_calls: list[int]) -> None:  # noqa: ANN001
    at = open_store_page(monkeypatch, [news_store.folder])
    at.text_input(key="sc_text").set_value(SENTENCE).run()
    bank = list(bundled.tokenize(SENTENCE)["token"]).index("bank")
    at.selectbox(key="sc_token").set_value(bank).run()
    assert at.selectbox(key="sc_store_left").options == ["layer 3", "layer 6"]
    states = bundled.encode([SENTENCE])[0].hidden_states  # (layers+1, tokens, hidden)
    runs = len(model_calls)
    for layer, side in ((3, "left"), (6, "right")):
        shown = table(at, f"sc_near_{side}")
        expected = news_store.token_search(states[layer, bank], layer, 10, "cosine", exact=True)
        # the index on 160 sentences' tokens: the tokens it finds are scored exactly, and most are exact's
        assert len(set(shown["context"]) & set(views_contexts(news_store, expected))) >= 8
        assert list(shown["score"]) == sorted(shown["score"], reverse=True)
    ran: dict = {}
    exec(recipes.store_tokens(bundled.info, str(news_store.folder), SENTENCE, bank, (3, 6), 10, "cosine"), ran)  # noqa: S102
    for layer in (3, 6):
        exact = news_store.token_search(states[layer, bank], layer, 10, "cosine", exact=True)["index"]
        assert list(ran["nearest"][layer]) == exact.tolist()  # the teaching code's answer is exact search's
        at.selectbox(key="sc_store_left").set_value(6).run()
    at.selectbox(key="sc_metric").set_value("euclidean distance").run()
    assert len(model_calls) == runs and not at.exception
    assert table(at, "sc_near_left")["context"].tolist() == table(at, "sc_near_right")["context"].tolist()
    assert any(re.search(r"\d+ of 10 \(\d+%\) are “bank”", m.value.replace("\\", "")) for m in at.markdown)


def views_contexts(store, found) -> list[str]:  # noqa: ANN001
    """The contexts a page shows for ``token_search`` rows, as ``views.nearest_stored_tokens`` writes them."""
    from bertviz_core.words.word_vectors import snippet

    return [snippet(store.texts[s], a, b, ("«", "»"), words=5) for s, a, b in zip(found["sentence"], found["start"],
                                                                                    found["end"])]


def test_contextuality_is_measured_at_the_stored_layers(monkeypatch: pytest.MonkeyPatch, labelled_store) -> None:  # noqa: ANN001
    from bertviz_core.precompute.contexts import store_contextuality, store_word_contextuality

    at = open_store_page(monkeypatch, [labelled_store.folder])
    at.text_input(key="sc_text").set_value(SENTENCE).run()  # its first token, "the", is the word measured
    shown = table(at, "sc_store_context_table")
    measured, _ = store_contextuality(labelled_store)
    mine, _ = store_word_contextuality(labelled_store, "The", measured)  # the word as written
    expected = measured.table.merge(mine, on="layer")
    assert shown["layer"].tolist() == [3, 6] and list(shown.columns) == list(expected.columns)
    np.testing.assert_allclose(shown.drop(columns="layer").to_numpy(float),
                               expected.drop(columns="layer").to_numpy(float), atol=1e-3)  # shown to 3 decimals
    assert any("all 160 stored sentences" in c.value for c in at.caption) and not at.exception
