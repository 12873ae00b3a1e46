"""Contextuality on a store (precompute.contexts): on every stored sentence it equals neighbours' measures of the
same corpus indexed by the model, at the store's token layers; larger stores are read on a stated seeded sample."""
from __future__ import annotations

import numpy as np
import pytest

from bertviz_core import Encoder
from bertviz_core.measures.neighbours import contextuality, word_contextuality
from bertviz_core.precompute import contexts
from bertviz_core.model.token_index import token_index


@pytest.mark.slow
def test_the_measures_equal_the_corpus_index_at_the_stored_layers(labelled_store, bundled: Encoder) -> None:  # noqa: ANN001
    measured, read = contexts.store_contextuality(labelled_store)
    assert read == 160 and measured.table["layer"].tolist() == [3, 6]
    index = token_index(bundled, labelled_store.texts)  # float16, every layer
    expected = contextuality(index)
    columns = [c for c in expected.table.columns if c != "layer"]
    np.testing.assert_allclose(measured.table[columns].to_numpy(), expected.table.loc[[3, 6], columns].to_numpy(),
                               atol=2e-3)  # the index keeps float16, the store float32
    assert measured.words == expected.words
    mine, sentences = contexts.store_word_contextuality(labelled_store, "the", measured)
    theirs = word_contextuality(index, "the", expected)
    assert sentences == index.tokens.loc[index.tokens["key"] == "the", "sentence"].nunique()
    np.testing.assert_allclose(mine.iloc[:, 1:].to_numpy(), theirs.loc[[3, 6]].iloc[:, 1:].to_numpy(), atol=2e-3)
    assert "all 160 stored sentences" in contexts.contextuality_note(labelled_store, read, "the", sentences)


def test_a_larger_store_is_read_on_a_seeded_sample(labelled_store) -> None:  # noqa: ANN001
    picked = contexts.sentence_sample(labelled_store, 40)
    assert len(picked) == 40 and (np.diff(picked) > 0).all()
    assert (contexts.sentence_sample(labelled_store, 40) == picked).all()
    index = contexts.sampled_index(labelled_store, picked)
    assert set(index.tokens["sentence"]) == set(picked) and index.vectors.shape[:2] == (2, len(index.tokens))
    np.testing.assert_array_equal(index.vectors[1], labelled_store.token_vectors(6)[
        np.flatnonzero(np.isin(labelled_store.token_rows["sentence"], picked))])
    with_word = contexts.sentence_sample(labelled_store, 5, "the")
    rows = labelled_store.token_rows
    assert len(with_word) == 5 and set(with_word) <= set(rows.loc[rows["key"] == "the", "sentence"])
    assert "a random 40 of the store's 160 sentences" in contexts.contextuality_note(labelled_store, 40, None, 0)


def test_bad_input_says_what_is_wrong(labelled_store, news_store, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    measured, _ = contexts.store_contextuality(labelled_store, 40)
    with pytest.raises(ValueError, match="does not occur in the store"):
        contexts.store_word_contextuality(labelled_store, "zyxwv", measured)
    for call in (lambda: contexts.sentence_sample(None), lambda: contexts.sentence_sample(labelled_store, 1),
                 lambda: contexts.sentence_sample(labelled_store, 10, 3),
                 lambda: contexts.store_word_contextuality(labelled_store, "the", None)):
        with pytest.raises(ValueError):
            call()
    monkeypatch.setitem(news_store.manifest, "token_layers", [])
    with pytest.raises(ValueError, match="holds no token vectors"):
        contexts.store_contextuality(news_store)
