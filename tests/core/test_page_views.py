"""bertviz_core.views.page_views: what the pages lay out but no longer decide (issue #28). Each test pins a function
against the expression the page held before it moved, so the numbers and words on screen stay the same."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bertviz_core.views import page_views as pv
from bertviz_core.measures.attention import THUMBNAIL_TOKENS, mean_weights
from bertviz_core.figures import layer_label
from bertviz_core.measures.masked import MaskedWord, MaskLens
from bertviz_core.measures.pooling_grid import Cell, grid_cells
from bertviz_core.measures.task_measures import PROBE_FOLDS
from bertviz_core.words.word_vectors import word_strategies

LAYER_COUNTS = (1, 2, 3, 4, 6, 12, 24)


@pytest.mark.parametrize("n", LAYER_COUNTS)
def test_layer_and_head_numbers(n: int) -> None:
    assert pv.state_count(n) == n + 1 and pv.layer_numbers(n) == list(range(n + 1))
    assert pv.head_numbers(n) == list(range(1, n + 1))
    assert pv.compare_default_layer(n) == n - 1
    assert pv.pooling_default_layers(n) == sorted({0, n // 2, max(0, n - 1), n})


def test_clip_and_lines() -> None:
    for text in ("", "short", "x" * 50, "y" * 51):
        assert pv.clip(text, 50) == f"{text[:50]}{'…' if len(text) > 50 else ''}"
    lines = pv.read_lines(" a \n\n b\n a\n  \n")
    assert lines == pv.Lines(("a", "b", "a"), 2, True) and not lines.too_few_to_compare
    assert pv.read_lines("one\n").too_few_to_compare and not pv.read_lines("one\ntwo").repeated


def test_head_view_and_model_view_note() -> None:
    weights = np.random.default_rng(0).random((3, 4, 5, 5))
    shown, which = pv.head_view(weights, 2, [1, 3])
    np.testing.assert_array_equal(shown, mean_weights(weights, [1], [0, 2]))
    assert which == "mean of heads 1, 3" and pv.head_view(weights, 1, [4])[1] == "head 4"
    note = pv.model_view_note(np.zeros((3, 4, 5, 5)), 5)
    assert note == "All 3 × 4 = 12 heads, each scaled to its own largest weight. Pick a layer and head above to see " \
                   "one in full."
    assert f"The text has 60 tokens: each thumbnail groups them into {THUMBNAIL_TOKENS} blocks" in \
        pv.model_view_note(np.zeros((3, 4, THUMBNAIL_TOKENS, THUMBNAIL_TOKENS)), 60)


def test_sentence_labels_and_tokens_preview() -> None:
    texts = ["a" * 90, "short"]
    labels = pv.sentence_labels(texts)
    assert labels.numbers == ["1", "2"]
    assert labels.names == [f"{i + 1}: {t[:50]}{'…' if len(t) > 50 else ''}" for i, t in enumerate(texts)]
    assert labels.short == [f"{i + 1}: {t[:24]}{'…' if len(t) > 24 else ''}" for i, t in enumerate(texts)]
    assert labels.key == [("1", "a" * 80 + "…"), ("2", "short")]
    tokens = [f"t{i}" for i in range(30)]
    assert pv.tokens_preview(tokens) == f"30 ({' '.join(tokens[:24])} …)" and pv.tokens_preview(["a"]) == "1 (a)"


def lens(tops: list[str]) -> MaskLens:
    k = len(tops)
    return MaskLens(3, np.arange(2 * k).reshape(2, k), np.array([tops, tops]), np.full((2, k), 0.5), (0,),
                    (tops[0],), np.ones((1, 2)), np.ones((1, 2)))


def test_masked_words_views() -> None:
    assert pv.mask_names([4, 6]) == ["mask 1 (token 4)", "mask 2 (token 6)"]
    assert pv.miswritten_note(1, "[MASK]").startswith("1 mask is not written [MASK] in capitals")
    assert pv.miswritten_note(2, "[MASK]").startswith("2 masks are not written")
    assert [pv.settles(k, 6) for k in (6, 0, 3)] == [
        "only after the last layer", "already in the embeddings, before any attention", "from layer 3 on"]
    lenses = [lens(["a", "b", "c"]), lens(["d", "e", "f"])]
    old = pd.concat([one.predictions(2).assign(mask=m + 1, rank=range(1, 2 + 1)) for m, one in enumerate(lenses)])
    pd.testing.assert_frame_equal(pv.every_guess(lenses, 2), old)
    old = pd.concat([one.tracked().assign(mask=m + 1) for m, one in enumerate(lenses)])
    pd.testing.assert_frame_equal(pv.per_mask([one.tracked() for one in lenses]), old)
    assert MaskedWord("[MASK] [MASK]", {1: 5, 2: 6}, ["play", "##ing"]).split
    assert not MaskedWord("[MASK]", {1: 5}, ["play"]).split


def test_task_measures_views() -> None:
    rows = grid_cells(["mean", "cls"], [0, 2], 2)
    cells = [cell for row in rows for cell in row]
    names = [f"{cell.strategy} · {layer_label(cell.layer)}" for cell in cells]
    assert cells[pv.default_cell(names, [0, 2])] == Cell("mean", 2)
    assert pv.default_cell([n for n in names if not n.startswith("mean")], [0, 2]) == 0  # no mean: the first cell
    assert pv.folds_note(PROBE_FOLDS) == "" and pv.folds_note(3) == " **This corpus: 3 folds**, as the note above says."
    assert pv.map_title(2, float("nan")) == "layer 2\nall identical" and pv.map_title(0, 0.876) == \
        "0 · embeddings\ntrust 0.88"
    positions, width = pv.grid_panels([["a", "b"], ["c"]])
    assert positions == [(1, 1, "a"), (1, 2, "b"), (2, 1, "c")] and width == 2
    assert pv.DEFAULT_PAIR_CORRECTION == [c for c in ("mean-centering", "whitening")][1]  # the page's index=1


def test_similar_contexts_views() -> None:
    assert [pv.neighbours_listed(k, 8) for k in (5, 8, 20)] == [5, 8, 8]
    assert pv.fewer_tokens_note(5, 8) is None and pv.fewer_tokens_note(8, 8) is None
    assert pv.fewer_tokens_note(10, 8) == "The corpus has 8 tokens, fewer than k = 10: all of them are listed."
    frame = pd.DataFrame({"layer": [0, 1], "x": [0.12345, 0.98765]})
    pd.testing.assert_frame_equal(pv.rounded(frame), frame.round(3))


def test_tokenization_views() -> None:
    assert [pv.default_padding(n, 512) for n in (3, 32, 40, 600)] == [32, 32, 40, 512]
    assert pv.default_padding(3, 16) == 16
    tokens = pd.DataFrame({"word_index": [None, 0, 0, 1, None], "piece": ["special", "word", "##", "word", "special"]})
    assert pv.token_counts(tokens, "##") == (2, 1)
    assert pv.vocab_window(30522) == (30521, 5000) and pv.vocab_window(100) == (99, 99)
    vocab = pd.DataFrame({"id": range(10)})
    pd.testing.assert_frame_equal(pv.vocab_rows(vocab, 3, 4), vocab.iloc[3:7])


def test_word_in_context_views() -> None:
    for n in LAYER_COUNTS:
        names = list(word_strategies(n))  # "sum of last n", the page's first, or the last layer on one layer
        assert names[pv.default_word_strategy(names)] == (f"sum of last {min(n, 4)}" if n > 1 else "last layer")
    assert pv.missing_occurrences(["a bank"], 2) is None
    assert pv.missing_occurrences(["x" * 70, "b"], 0) == ("does not occur", f"“{'x' * 60}…”; “b”")
    assert pv.missing_occurrences(["b"], 1)[0] == "occurs once"
    rows = [{"comparison": "a", "tutorial": 0.94, "this_model": 0.5},
            {"comparison": "b", "tutorial": None, "this_model": 0.25}]
    table = pv.tutorial_table(rows, "m")
    assert list(table.columns) == ["comparison", "tutorial (bert-base-uncased)", "this model (m)"]
    assert list(table["tutorial (bert-base-uncased)"]) == ["0.94", "not reported"]
