"""What pages show of a precomputed store (issue #30): its columns, the nearest stored sentences with the query's
own copies left out however many, and the search said in words."""
from __future__ import annotations

import numpy as np
import pytest

from bertviz_core.precompute import views
from bertviz_core.similarity import METRICS


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
    said = views.search_note(news_store, "mean", 6, "dot product")
    recall = news_store.manifest["indexes"]["mean@6"]["recall"]["dot product"]
    assert said.startswith("Approximate search over 160 stored sentences") and f"recall@10 {recall:.3f}" in said
    monkeypatch.setitem(news_store.manifest, "indexes", {})
    assert views.search_note(news_store, "mean", 6, "cosine") == ("Exact search: the query is scored against all "
                                                                  "160 stored sentences.")
