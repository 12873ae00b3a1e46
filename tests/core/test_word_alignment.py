"""Word alignment across tokenizers (bertviz_core.words.word_alignment): a WordPiece and a byte-level BPE tiny model cut
the same sentences differently, with accents, punctuation and split words; each unit is whole pieces of both, and
its vectors are the plain mean of those pieces' hidden states."""
from __future__ import annotations

import numpy as np
import pytest

from bertviz_core import Encoder
from bertviz_core.measures.cka import cka_matrix
from bertviz_core.words.word_alignment import aligned_words, align, text_units

SENTENCES = ["A café in Zürich serves crème brûlée to naïve tourists.",
             "Don't split well-known words, e.g. state-of-the-art models!",
             "Unbelievably, the riverbank's (muddy) edge — 1,000 m long — eroded."]


@pytest.fixture(scope="module")
def pair(family_encoders: dict[str, Encoder]) -> tuple[Encoder, Encoder]:
    return family_encoders["bert"], family_encoders["roberta"]


def test_every_unit_is_whole_pieces_of_both_models_and_covers_its_words(pair) -> None:  # noqa: ANN001
    bert, roberta = pair
    items = bert.inputs(SENTENCES), roberta.inputs(SENTENCES)
    units, left_out = align(SENTENCES, *items)
    assert left_out == 0
    for unit in units:
        text = SENTENCES[unit.text]
        assert text[unit.start:unit.end].strip() == text[unit.start:unit.end]
        for side, model_items in (("first", items[0]), ("second", items[1])):
            item = model_items[unit.text]
            spans = [item.offsets[p] for p in getattr(unit, side)]
            assert spans and min(s for s, _ in spans) == unit.start and max(e for _, e in spans) == unit.end
            # no piece of this model outside the unit overlaps it, so a piece is never shared by two units
            others = [item.offsets[p] for p in range(len(item.offsets))
                      if p not in getattr(unit, side) and not item.special[p]]
            assert all(e <= unit.start or s >= unit.end for s, e in others)
    words = [SENTENCES[u.text][u.start:u.end] for u in units]
    assert "Zürich" in words and "brûlée" in words and "naïve" in words and "Don't" in words
    assert "," not in words and "!" not in words and "well" in words and "known" in words


def test_the_two_tokenizers_really_cut_the_words_differently(pair) -> None:  # noqa: ANN001
    bert, roberta = pair
    units, _ = align(SENTENCES, bert.inputs(SENTENCES), roberta.inputs(SENTENCES))
    assert any(len(u.first) != len(u.second) for u in units)
    assert any(len(u.first) > 1 for u in units) and any(len(u.second) > 1 for u in units)


def test_vectors_are_the_mean_of_each_models_pieces(pair) -> None:  # noqa: ANN001
    bert, roberta = pair
    aligned = aligned_words(bert, roberta, SENTENCES)
    assert aligned.first.shape == (len(aligned.units), bert.info.num_layers + 1, bert.info.hidden_size)
    assert aligned.second.shape == (len(aligned.units), roberta.info.num_layers + 1, roberta.info.hidden_size)
    encoded = bert.encode(SENTENCES), roberta.encode(SENTENCES)
    for row, unit in enumerate(aligned.units):
        for vectors, encodings, side in ((aligned.first, encoded[0], "first"), (aligned.second, encoded[1], "second")):
            expected = encodings[unit.text].hidden_states[:, list(getattr(unit, side))].mean(axis=1)
            np.testing.assert_allclose(vectors[row], expected, atol=1e-5)
    m = cka_matrix(aligned.first, aligned.first)
    np.testing.assert_allclose(np.diag(m), 1.0, atol=1e-9)


def test_words_a_model_truncates_are_left_out_and_counted(pair) -> None:  # noqa: ANN001
    bert, roberta = pair
    long = " ".join(["alpha"] * 300) + " omega end."  # past the tiny models' 128 positions
    short = "alpha beta."
    text_items = bert.inputs([long, short]), roberta.inputs([long, short])
    units, left_out = align([long, short], *text_items)
    kept_long = [u for u in units if u.text == 0]
    assert left_out > 0 and len(kept_long) + left_out == 302  # 300 + omega + end
    assert all(long[u.start:u.end] == "alpha" for u in kept_long)
    assert [short[u.start:u.end] for u in units if u.text == 1] == ["alpha", "beta"]


def test_one_text_alone_matches_its_place_in_a_corpus(pair) -> None:  # noqa: ANN001
    bert, roberta = pair
    units, _ = align(SENTENCES, bert.inputs(SENTENCES), roberta.inputs(SENTENCES))
    alone, _ = text_units(SENTENCES[1], bert.inputs(SENTENCES[1:2])[0], roberta.inputs(SENTENCES[1:2])[0], index=1)
    assert alone == [u for u in units if u.text == 1]


@pytest.mark.parametrize("call, message", [
    (lambda b, r: align(["a b"], b.inputs(["a b"]), []), "item"),
    (lambda b, r: aligned_words(b, "roberta", ["a b"]), "Encoder"),
    (lambda b, r: aligned_words(b, r, "a b"), "list"),
    (lambda b, r: aligned_words(b, r, ["a b"], progress=3), "function"),
])
def test_bad_input_says_what_is_wrong(pair, call, message: str) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match=message):
        call(*pair)
