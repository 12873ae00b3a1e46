"""What pages show of a precomputed store (issue #30): its columns, the nearest stored sentences with the query's
own copies left out however many, and the search said in words."""
from __future__ import annotations

import re

import numpy as np
import pytest

from bertviz_core.precompute import views
from bertviz_core.precompute.reader import INDEXED_METRICS
from bertviz_core.measures.similarity import METRICS


def test_the_columns_and_the_default_are_what_the_store_holds(news_store) -> None:  # noqa: ANN001
    assert views.stored_columns(news_store) == {"mean": [6]} and views.default_strategy(news_store) == "mean"


@pytest.mark.parametrize("metric", list(METRICS))
def test_the_own_copies_are_left_out_and_the_rest_is_a_full_sort(news_store, metric: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(views, "OWN_COPIES", 0)  # the first answer holds the copy: more must be asked for
    vectors = np.asarray(news_store.vectors("mean", 6))
    sentence = news_store.texts[12]
    found = views.nearest_stored_sentences(news_store, vectors[12], "mean", 6, 5, metric, f"  {sentence} ")
    scores = METRICS[metric].between(vectors, vectors[12][None])[:, 0]
    order = [row for row in np.argsort(-scores if METRICS[metric].similar_high else scores, kind="stable")
             if row != 12][:5]
    assert found["row"].tolist() == order and found["rank"].tolist() == [1, 2, 3, 4, 5]
    np.testing.assert_allclose(found["score"], scores[order], rtol=1e-5, atol=1e-5)
    assert found["text"].tolist() == [news_store.texts[row] for row in order]
    everything = views.nearest_stored_sentences(news_store, vectors[12], "mean", 6, 500, metric, sentence)
    assert len(everything) == 159 and 12 not in everything["row"].tolist()


def test_the_search_is_said_as_it_was_done(news_store, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    said = views.search_note(news_store, "mean", 6, "cosine")
    recall = news_store.manifest["indexes"]["mean@6"]["recall"]["cosine"]
    assert said.startswith("Approximate search over 160 stored sentences") and f"recall@10 {recall:.3f}" in said
    monkeypatch.setitem(news_store.manifest, "indexes", {})
    assert views.search_note(news_store, "mean", 6, "cosine") == ("Exact search: the query is scored against all "
                                                                  "160 stored sentences.")


@pytest.mark.parametrize("metric", list(METRICS))
def test_token_search_is_a_full_sort_and_the_index_finds_most_of_it(news_store, metric: str) -> None:  # noqa: ANN001
    tokens = np.asarray(news_store.token_vectors(3))
    query = tokens[40] + 0.01
    scores = METRICS[metric].between(tokens, query[None])[:, 0]
    order = np.argsort(-scores if METRICS[metric].similar_high else scores, kind="stable")[:10]
    exact = news_store.token_search(query, 3, 10, metric, exact=True)
    assert exact["index"].tolist() == order.tolist()
    np.testing.assert_allclose(exact["score"], scores[order], rtol=1e-5, atol=1e-5)
    assert exact["token"].tolist() == news_store.token_rows["token"].iloc[order].tolist()
    method = news_store.token_search_method(3, metric)
    found = news_store.token_search(query, 3, 10, metric)
    if metric not in INDEXED_METRICS:  # searched exactly
        assert method["kind"] == "exact" and found["index"].tolist() == order.tolist()
        return
    assert method["kind"] == "approximate" and method["rows"] == len(tokens)
    assert len(set(found["index"]) & set(order)) >= 10 * method["recall"] - 2


def test_a_tokens_neighbours_leave_its_sentences_copies_out_and_mark_the_token(news_store,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setattr(views, "OWN_COPIES", 0)
    rows = news_store.token_rows
    first = int(np.flatnonzero(rows["sentence"].to_numpy() == 7)[2])  # the third token of stored sentence 7
    vector = np.asarray(news_store.token_vectors(6)[first])
    found = views.nearest_stored_tokens(news_store, vector, 6, 8, "cosine", news_store.texts[7])
    assert len(found) == 8 and news_store.texts[7] not in found["sentence"].tolist()
    marked = [re.search("«(.+?)»", context).group(1).lower() for context in found["context"]]
    assert marked == [token.removeprefix("##") for token in found["token"]]  # the token's own characters
    tokens = np.asarray(news_store.token_vectors(6))
    scores = METRICS["cosine"].between(tokens, vector[None])[:, 0]
    allowed = rows["sentence"].to_numpy() != 7
    expected = [i for i in np.argsort(-scores, kind="stable") if allowed[i]][:8]
    np.testing.assert_allclose(found["score"], scores[expected], rtol=1e-5, atol=1e-5)
    assert "Approximate search over" in views.token_search_note(news_store, 6, "cosine")


def test_a_metric_the_index_serves_badly_is_searched_exactly_and_said_so(news_store,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    for metric in ("dot product", "euclidean distance"):  # not ranked by direction alone: never through the index
        assert news_store.search_method("mean", 6, metric) == {"kind": "exact", "rows": 160, "not_by_direction": metric}
        assert views.search_note(news_store, "mean", 6, metric).endswith(
            f"The store's index is not used for {metric}: it finds rows by direction, which only cosine ranks by "
            "alone, so this search reads every row and takes longer.")
    facts = news_store.manifest["indexes"]["mean@6"]
    assert news_store.search_method("mean", 6, "cosine")["kind"] == "approximate"
    monkeypatch.setitem(facts, "recall", {**facts["recall"], "cosine": 0.368})
    assert news_store.search_method("mean", 6, "cosine") == {"kind": "exact", "rows": 160, "index_recall": 0.368}
    said = views.search_note(news_store, "mean", 6, "cosine")
    assert said.startswith("Exact search: the query is scored against all 160 stored sentences. The store's index is "
                           "not used: it found only 37% of the true 10 nearest")
    vectors = np.asarray(news_store.vectors("mean", 6))
    query = vectors[3] + 0.05
    scores = vectors @ query
    found = news_store.search(query, 10, "mean", 6, "dot product")
    assert found["index"].tolist() == np.argsort(-scores, kind="stable")[:10].tolist()
