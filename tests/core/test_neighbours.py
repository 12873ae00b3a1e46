"""Similar contexts: the token index against plain transformers, nearest neighbours against brute force,
the contextuality measures against direct numpy on constructed vectors, and the teaching code (the page:
pages/test_similar_contexts_page.py)."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
import torch
from conftest import assert_top_k, token_rows
from transformers import AutoModel, AutoTokenizer

from bertviz_core import Encoder
from bertviz_core.corpora import TUTORIAL, reference_corpus
from bertviz_core.model.models import bundled_model_dir
from bertviz_core.measures.neighbours import (
    anisotropy_baseline,
    contextuality,
    corpus_self_similarity,
    intra_sentence_similarity,
    nearest_sentences,
    nearest_tokens,
    self_similarity,
)
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.measures.similarity import METRICS
from bertviz_core.model.token_index import TokenIndex, index_rows, token_index
from bertviz_core.views.similar_contexts import layer_summary, share_said

TEXTS = ("The bank by the river flooded.", "She paid the bank.", "A river bank.", "Money, money and more money.",
         "Rivers flow to the sea.")


def brute_force(candidates: np.ndarray, query: np.ndarray, metric: str) -> np.ndarray:
    """Scores by the textbook formulas, in float64."""
    c, q = candidates.astype(np.float64), query.astype(np.float64)
    if metric == "cosine":
        return c @ q / (np.linalg.norm(c, axis=1) * np.linalg.norm(q))
    if metric == "dot product":
        return c @ q
    return np.linalg.norm(c - q, axis=1)


@pytest.fixture(scope="module", params=["bundled", "tiny"])
def encoder(request: pytest.FixtureRequest) -> Encoder:
    return request.getfixturevalue(request.param)


def test_the_index_holds_every_ordinary_token_as_plain_transformers_computes_it(encoder: Encoder) -> None:
    index = token_index(encoder, TEXTS)
    folder = encoder.info.source
    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    assert index.vectors.dtype == np.float16
    assert index.vectors.shape == (encoder.info.num_layers + 1, len(index.tokens), encoder.info.hidden_size)
    for sentence, text in enumerate(TEXTS):
        inputs = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            states = torch.stack(model(**inputs, output_hidden_states=True).hidden_states)[:, 0, 1:-1].numpy()
        rows = index.tokens["sentence"] == sentence
        assert index.tokens.loc[rows, "position"].tolist() == list(range(1, states.shape[1] + 1))
        assert index.tokens.loc[rows, "token"].tolist() == tokenizer.convert_ids_to_tokens(inputs["input_ids"][0])[1:-1]
        np.testing.assert_allclose(index.vectors[:, rows.to_numpy()], states, rtol=2e-3, atol=2e-3)  # float16
    assert index.theoretical_bytes == index.vectors.nbytes


@pytest.mark.parametrize("metric", list(METRICS))
def test_nearest_tokens_equal_brute_force(encoder: Encoder, metric: str) -> None:
    index = token_index(encoder, TEXTS)
    (query,) = encoder.encode([TUTORIAL])
    for layer in (0, 1, encoder.info.num_layers):
        vector = query.hidden_states[layer, 2]
        found = nearest_tokens(index, vector, layer, 7, metric)
        scores = brute_force(index.vectors[layer], vector, metric)  # float64 of the float16 index: 1e-3 apart
        assert_top_k(token_rows(index.tokens, found), found["score"], scores, METRICS[metric].similar_high, atol=1e-3)
        assert found["rank"].tolist() == list(range(1, 8))


def test_k_larger_than_the_corpus_gives_every_token(tiny: Encoder) -> None:
    index = token_index(tiny, TEXTS[:2])
    assert len(nearest_tokens(index, index.vectors[1, 0], 1, 10_000)) == len(index.tokens)
    with pytest.raises(ValueError, match="at least 1"):
        nearest_tokens(index, index.vectors[1, 0], 1, 0)


def test_nearest_sentences_equal_brute_force(bundled: Encoder) -> None:
    pooled = bundled.embed(list(TEXTS))
    query = bundled.embed(["Water flowing past the shore."])
    for strategy in POOLINGS:
        if strategy not in pooled:
            continue
        layer = 3 if POOLINGS[strategy].per_layer else None
        found = nearest_sentences(pooled, query, strategy, layer, 3)
        candidates, q = POOLINGS[strategy].at(pooled[strategy], layer), POOLINGS[strategy].at(query[strategy], layer)[0]
        assert_top_k(found["sentence"].tolist(), found["score"], brute_force(candidates, q, "cosine"))


# ---- contextuality on constructed vectors whose answers are known ------------------------------------

def constructed_index(vectors: np.ndarray, sentences: list[int], keys: list[str]) -> TokenIndex:
    """An index with given vectors (layers+1, tokens, hidden), each token a one-piece word."""
    frame = pd.DataFrame({"sentence": sentences, "position": range(1, len(keys) + 1), "token": keys, "word": keys,
                          "key": keys, "start": 0, "end": 1, "word_start": range(len(keys)), "word_end": 1})
    texts = tuple(" ".join(k for k, s in zip(keys, sentences) if s == i) for i in range(max(sentences) + 1))
    return TokenIndex(vectors.astype(np.float16), frame, texts)


def test_self_similarity_is_one_when_a_word_never_changes_and_zero_when_orthogonal() -> None:
    e = np.eye(4)
    # layer 0: "bank" is the same vector in all three sentences; layer 1: orthogonal in each
    layer0 = np.stack([e[0], e[1], e[0], e[2], e[0], e[3]])
    layer1 = np.stack([e[0], e[3], e[1], e[3], e[2], e[3]])
    index = constructed_index(np.stack([layer0, layer1]), [0, 0, 1, 1, 2, 2], ["bank", "a", "bank", "b", "bank", "c"])
    np.testing.assert_allclose(self_similarity(index, "Bank"), [1.0, 0.0], atol=1e-3)
    with pytest.raises(ValueError, match="does not occur"):
        self_similarity(index, "shore")
    with pytest.raises(ValueError, match="only one sentence"):
        self_similarity(index, "a")


def test_self_similarity_counts_only_pairs_from_different_sentences() -> None:
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(1, 5, 8))
    sentences, keys = [0, 0, 1, 2, 2], ["w"] * 5
    index = constructed_index(vectors, sentences, keys)
    stored = index.vectors[0].astype(np.float32)
    unit = stored / np.linalg.norm(stored, axis=1, keepdims=True)
    pairs = [unit[i] @ unit[j] for i in range(5) for j in range(5) if sentences[i] != sentences[j]]
    np.testing.assert_allclose(self_similarity(index, "w"), [np.mean(pairs)], atol=1e-5)
    # the corpus measure averages words present in enough sentences
    both = constructed_index(np.concatenate([vectors, vectors], 1), sentences * 2, keys + ["v"] * 5)
    value, words = corpus_self_similarity(both, min_contexts=3)
    assert words == 2
    np.testing.assert_allclose(value, [np.mean(pairs)], atol=1e-5)
    assert corpus_self_similarity(both, min_contexts=4)[1] == 0


def test_intra_sentence_similarity_and_the_baseline_against_direct_numpy() -> None:
    rng = np.random.default_rng(2)
    vectors = rng.normal(size=(2, 9, 6))
    sentences = [0, 0, 0, 1, 1, 2, 2, 2, 2]
    index = constructed_index(vectors, sentences, [f"t{i}" for i in range(9)])
    stored = index.vectors.astype(np.float32)
    unit = lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)  # noqa: E731
    expected = [np.mean([np.mean(unit(stored[layer][np.array(sentences) == s]) @ unit(
        stored[layer][np.array(sentences) == s].mean(0))) for s in range(3)]) for layer in range(2)]
    np.testing.assert_allclose(intra_sentence_similarity(index), expected, atol=1e-5)
    # identical vectors everywhere: every random pair scores 1
    same = constructed_index(np.ones((1, 9, 6)), sentences, [f"t{i}" for i in range(9)])
    np.testing.assert_allclose(anisotropy_baseline(same), [1.0], atol=1e-3)
    baseline = anisotropy_baseline(index, pairs=500)
    assert baseline.shape == (2,) and np.all(np.abs(baseline) < 0.5)


def test_contextuality_adjusts_by_the_baseline(tiny: Encoder) -> None:
    index = token_index(tiny, TEXTS)
    result = contextuality(index, min_contexts=2)
    table = result.table
    np.testing.assert_allclose(table["self-similarity, adjusted"],
                               table["self-similarity"] - table["anisotropy baseline"], atol=1e-5)
    np.testing.assert_allclose(table["intra-sentence similarity"], intra_sentence_similarity(index), atol=1e-5)
    assert result.words >= 2 and len(table) == tiny.info.num_layers + 1


@pytest.mark.slow
def test_layer_summary_counts_the_same_word(bundled: Encoder) -> None:
    index = token_index(bundled, reference_corpus())
    (query,) = bundled.encode([TUTORIAL])
    summary = layer_summary(index, query.hidden_states[:, 10], "bank", 10)  # the second "bank"
    for layer in (0, 6):
        near = nearest_tokens(index, query.hidden_states[layer, 10], layer, 10)
        assert summary.loc[layer, "same word"] == (near["key"] == "bank").mean()
        assert summary.loc[layer, "same-word neighbours"] == (near["key"] == "bank").sum()
    assert summary.loc[0, "same word"] == 1.0  # before any context, "bank" is nearest to "bank"
    assert (summary["most possible"] == 10).all()  # the corpus holds more than 10 "bank" tokens


def test_a_word_the_corpus_holds_few_of_caps_the_share_and_the_page_says_so(tiny: Encoder) -> None:
    """Two "bank" tokens in the other sentences: at most 2 of k = 4 neighbours can be "bank", said beside the share."""
    index = token_index(tiny, TEXTS)
    (query,) = tiny.encode([TEXTS[2]])  # "A river bank.": its own copy (sentence 2) is left out
    summary = layer_summary(index, query.hidden_states[:, 3], "Bank", 4, exclude=[2])
    assert (summary["neighbours"] == 4).all() and (summary["most possible"] == 2).all()
    for layer, row in summary.iterrows():
        near = nearest_tokens(index, query.hidden_states[layer, 3], layer, 4, exclude=[2])
        assert row["same-word neighbours"] == (near["key"] == "bank").sum() <= 2
    said = share_said(summary.iloc[0], "bank")
    same = summary.loc[0, "same-word neighbours"]
    assert said == (f"{same} of 4 ({same / 4:.0%}) are “bank”; at most 2 of 4: the corpus holds only 2 “bank” "
                    "tokens outside your sentence")
    uncapped = summary.assign(**{"most possible": 4}).iloc[0]
    assert share_said(uncapped, "bank") == f"{same} of 4 ({same / 4:.0%}) are “bank”"


def test_index_rows_name_whole_words(bundled: Encoder) -> None:
    tokenizer = AutoTokenizer.from_pretrained(bundled_model_dir())
    item = bundled.inputs(["Word embeddings!"])[0]
    rows = index_rows([item], ["Word embeddings!"])
    assert rows["token"].tolist() == tokenizer.tokenize("Word embeddings!")
    assert rows["word"].tolist() == ["Word", "embeddings", "embeddings", "embeddings", "embeddings", "!"]
    assert rows["key"].tolist()[0] == "word"


@pytest.mark.slow
def test_the_recipe_reproduces_the_neighbours_and_the_measures(bundled: Encoder) -> None:
    from recipe_runs import run

    from bertviz_core import recipes
    from bertviz_core.measures.neighbours import contextuality, own_sentences, word_contextuality

    texts = reference_corpus()
    index = token_index(bundled, texts)
    own = own_sentences(texts, TUTORIAL)
    assert own  # the tutorial sentence is in the corpus: the page and the code both leave it out
    (query,) = bundled.encode([TUTORIAL])
    pooled, query_pooled = bundled.embed(list(texts)), bundled.embed([TUTORIAL])
    for metric, layers, strategy, sentence_layer in (("cosine", (1, 6), "mean", 6),
                                                     ("euclidean distance", (6, 2), "pooler", None)):
        ns = run(recipes.similar_contexts(bundled.info, TUTORIAL, 10, recipes.BUILT_IN_CORPUS, layers, 8, metric,
                                          "bank", POOLINGS[strategy].code, sentence_layer))
        for layer in layers:
            found = nearest_tokens(index, query.hidden_states[layer, 10], layer, 8, metric, own)
            assert [ns["where"][i][0] for i in ns["neighbours"][layer]] == found["sentence"].tolist()
            assert [ns["where"][i][2] for i in ns["neighbours"][layer]] == found["word_start"].tolist()
            row = layer_summary(index, query.hidden_states[:, 10], "bank", 8, metric, own).iloc[layer]
            assert ns["shares"][layer] == (row["same-word neighbours"], row["neighbours"], row["most possible"])
        near = nearest_sentences(pooled, query_pooled, strategy, sentence_layer, 8, metric, own)
        assert [int(s) for s in ns["nearest_sentences"]] == near["sentence"].tolist()
        measures = contextuality(index).table.merge(word_contextuality(index, "bank", contextuality(index)), on="layer")
        row = measures.iloc[layers[0]]
        vectors, apart = ns["vectors"], ns["apart"]
        assert (vectors @ vectors.T)[apart].mean() == pytest.approx(row["self-similarity of “bank”"], abs=1e-4)
        assert ns["intra_sentence"] == pytest.approx(row["intra-sentence similarity"], abs=1e-4)
        assert ns["baseline"] == pytest.approx(row["anisotropy baseline"], abs=1e-4)


def test_the_query_sentence_is_left_out_when_the_corpus_holds_it(tiny: Encoder) -> None:
    from bertviz_core.measures.neighbours import own_sentences

    index = token_index(tiny, TEXTS)
    (query,) = tiny.encode([TEXTS[2]])
    assert own_sentences(TEXTS, " A river bank. ") == [2]
    found = nearest_tokens(index, query.hidden_states[3, 2], 3, 100, exclude=[2])
    assert 2 not in set(found["sentence"]) and len(found) == (index.tokens["sentence"] != 2).sum()
    pooled = tiny.embed(list(TEXTS))
    near = nearest_sentences(pooled, tiny.embed([TEXTS[2]]), "mean", 3, 10, exclude=[2])
    assert near["sentence"].tolist() == [s for s in near["sentence"] if s != 2] and len(near) == 4
