"""Word vectors against plain transformers; word finding; strategies, metrics and sense scores."""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
import torch
from transformers import AutoModel, AutoTokenizer

from conftest import F32

from bertviz_core import Encoder
from bertviz_core.corpora import TUTORIAL, word_presets
from bertviz_core.corpora.tutorial import tutorial_comparison
from bertviz_core.model.models import bundled_model_dir
from bertviz_core.measures.similarity import (
    METRICS,
    pair_layer_curves,
    same_sense_pairs,
    score_grid,
    sense_scores,
    similarity_matrix,
)
from bertviz_core.words.word_vectors import (
    SUBWORD_RULES,
    find_spans,
    stack,
    suggest_words,
    word_strategies,
)


@pytest.fixture(scope="module")
def plain():
    folder = bundled_model_dir()
    return AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()


def plain_word(plain, text: str, token_positions: list[int]) -> np.ndarray:
    """transformers alone: mean of the pieces' hidden states, (layers+1, hidden)."""
    tokenizer, model = plain
    with torch.no_grad():
        out = model(**tokenizer(text, return_tensors="pt"), output_hidden_states=True)
    states = torch.stack(out.hidden_states)[:, 0]  # (layers+1, tokens, hidden)
    return states[:, token_positions].mean(1).numpy()


@pytest.mark.slow
def test_word_vectors_equal_plain_transformers(bundled: Encoder, plain) -> None:
    texts = [
        "Word embeddings are vectors; embeddings, unlike ids, carry meaning. EMBEDDINGS!",
        "Short one with embeddings.",
        TUTORIAL + " " + TUTORIAL,  # long: pads the others in the batch
    ]
    found = bundled.word_vectors(texts, "embeddings")
    assert [o.sentence for o in found] == [0, 0, 0, 1]
    tokenizer, _ = plain
    for o in found:
        ids = tokenizer(texts[o.sentence])["input_ids"]
        assert tokenizer.convert_ids_to_tokens([ids[p] for p in o.positions]) == ["em", "##bed", "##ding", "##s"]
        assert o.vectors.shape == (7, 384) and o.vectors.dtype == np.float32
        assert np.abs(o.vectors - plain_word(plain, texts[o.sentence], o.positions)).max() <= 1e-5
    banks = bundled.word_vectors(texts, "bank")
    assert [o.positions for o in banks if o.sentence == 2][:3] == [[6], [10], [19]]
    for o in banks:
        assert np.abs(o.vectors - plain_word(plain, texts[o.sentence], o.positions)).max() <= 1e-5


def test_subword_rules(bundled: Encoder) -> None:
    (enc,) = bundled.encode(["embeddings"])
    pieces = enc.hidden_states[:, 1:5]
    for rule, expect in {"mean": pieces.mean(1), "sum": pieces.sum(1), "first": pieces[:, 0],
                         "last": pieces[:, 3]}.items():
        (o,) = bundled.word_vectors(["embeddings"], "embeddings", subword=rule)
        np.testing.assert_allclose(o.vectors, expect, atol=1e-5)
    with pytest.raises(ValueError, match="mean, sum, first, last"):
        bundled.word_vectors(["x"], "x", subword="median")


def test_find_spans_whole_words_case_and_punctuation() -> None:
    text = "Bank, bank. banking embankment (bank) BANK's river-bank"
    assert [text[s:e] for s, e in find_spans(text, "bank")] == ["Bank", "bank", "bank", "BANK", "bank"]
    assert find_spans("nothing here", "bank") == []


@pytest.mark.parametrize(("word", "message"), [
    ("", "Enter a word"), ("   ", "Enter a word"), ("?!", "no letters"), ("river bank", "more than one word")])
def test_bad_words_are_refused(bundled: Encoder, word: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bundled.word_vectors([TUTORIAL], word)


def test_missing_word_is_empty_and_suggestions_come_from_the_texts(bundled: Encoder) -> None:
    assert bundled.word_vectors([TUTORIAL], "banks") == []
    assert "bank" in suggest_words([TUTORIAL], "banks")
    assert set(suggest_words([TUTORIAL], "zzzz")) <= set(TUTORIAL.lower().replace(",", "").replace(".", "").split())


def test_strategy_names_and_code_follow_the_layer_count() -> None:
    s = word_strategies(6)  # layer 0 is the embedding layer, 5 the second-to-last, 6 the last
    assert [k for k in s if k.startswith("layer ")] == [f"layer {k}" for k in range(1, 5)]
    assert s["sum of last 4"].code == "states[3:].sum(0)"
    assert len(word_strategies(12)) == 7 + 13 - 3


def test_unknown_metric_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=", ".join(METRICS)):
        similarity_matrix(np.eye(3), "manhattan")


def test_sense_scores_match_a_direct_count() -> None:
    x = np.random.default_rng(3).normal(size=(6, 8))
    senses = ["a", "a", "b", "b", "a", "c"]
    cos = similarity_matrix(x)
    pairs = list(combinations(range(6), 2))
    same = [cos[i, j] for i, j in pairs if senses[i] == senses[j]]
    diff = [cos[i, j] for i, j in pairs if senses[i] != senses[j]]
    wins = sum((s > d) + 0.5 * (s == d) for s in same for d in diff) / (len(same) * len(diff))
    got = sense_scores(x, senses)
    assert got["gap"] == pytest.approx(np.mean(same) - np.mean(diff), **F32)
    assert got["auc"] == pytest.approx(wins, **F32)
    assert np.isnan(sense_scores(x, ["a"] * 6)["auc"])
    grid = score_grid({"mean": x[:, None, :]}, {"only": lambda v: v[:, 0]}, senses)
    assert grid.loc["mean", "only"] == pytest.approx(wins, **F32)
    unknown = score_grid({"mean": np.concatenate([x, x[:2]])[:, None, :]}, {"only": lambda v: v[:, 0]},
                         senses + ["?", "?"])  # unlabelled occurrences are left out
    assert unknown.loc["mean", "only"] == pytest.approx(wins, **F32)
    assert score_grid({"mean": x[:, None, :]}, {"only": lambda v: v[:, 0]}, ["a"] * 5 + ["?"]) is None
    assert same_sense_pairs(["a", "a", "?", "b"]) == {(0, 1): True, (0, 2): None, (0, 3): False, (1, 2): None,
                                                     (1, 3): False, (2, 3): None}


def test_pair_curves_are_per_layer_cosines() -> None:
    v = np.random.default_rng(4).normal(size=(3, 5, 4))
    curves = pair_layer_curves(v, ["a", "b", "c"])
    assert len(curves) == 3 * 5
    row = curves[(curves.i == 0) & (curves.j == 2) & (curves.layer == 4)].iloc[0]
    a, c = v[0, 4], v[2, 4]
    assert row["cosine"] == pytest.approx(a @ c / np.linalg.norm(a) / np.linalg.norm(c), **F32)


@pytest.mark.slow
def test_tutorial_comparison_and_presets(bundled: Encoder) -> None:
    found = bundled.word_vectors([TUTORIAL], "bank")
    rows = tutorial_comparison(found, 0, word_strategies(6)["sum of last 4"])
    assert [r["tutorial"] for r in rows] == [0.94, 0.69, None]
    v = word_strategies(6)["sum of last 4"].fn(stack(found))
    assert rows[0]["this_model"] == pytest.approx(float(similarity_matrix(v)[0, 1]), **F32)
    for word, preset in word_presets().items():
        assert len(bundled.word_vectors(list(preset.texts), word)) == sum(map(len, preset.senses))
    assert set(SUBWORD_RULES) == {"mean", "sum", "first", "last"}


def test_default_senses_follow_the_preset_per_occurrence() -> None:
    bank = word_presets()["bank"]
    texts = [TUTORIAL, "A sentence the preset does not know, with a bank."]
    assert bank.default_senses(texts, [0, 0, 0, 1]) == ["money", "money", "river", "?"]


@pytest.mark.parametrize(("layers", "last"), [(2, 2), (3, 3), (4, 4), (12, 4)])  # one layer: its last layer
def test_the_last_layers_strategies_are_named_by_what_they_take(layers: int, last: int) -> None:
    strategies = word_strategies(layers)
    states = np.arange((layers + 1) * 2, dtype=np.float32).reshape(layers + 1, 2)
    assert f"sum of last {last}" in strategies and f"concat of last {last}" in strategies
    np.testing.assert_array_equal(strategies[f"sum of last {last}"].fn(states), states[-last:].sum(0))
    assert strategies[f"concat of last {last}"].fn(states).shape == (2 * last,)
