"""What the Compare models page shows, as plain results: the layer × layer CKA and RSA tables of two models over the
same texts, the sentences that tell their story, and the two models side by side on a few texts (tokenization,
similarity matrices, nearest sentences). Nothing here runs a model."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.measures.cka import cka_matrix, rsa_matrix
from bertviz_core.model.encoding import ModelInput
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.measures.similarity import similarity_matrix
from bertviz_core.words.word_alignment import WORD, text_units

ESTIMATORS: dict[str, bool] = {"linear CKA": False, "debiased CKA": True}  # name: cka_matrix's ``debiased``
LEVELS: dict[str, str] = {"sentences": "one pooled vector per text",
                          "words": "one vector per word, its pieces averaged in each model"}
RSA_ROWS = 1_000  # RSA ranks n (n-1)/2 pairs per layer: on larger corpora, the first this many texts
# Strategies with a vector at every layer: CKA compares layers (their registry order; none needs a pooler)
LAYER_STRATEGIES: tuple[str, ...] = tuple(name for name, pooling in POOLINGS.items() if pooling.per_layer)
SAME_MODEL_TOLERANCE = 1e-6  # a diagonal this close to 1 and a symmetric table: one model on both sides
FEW_ROWS = 50  # fewer texts (or words) than this: the story says how little to trust the values
SIDE_TEXTS = 10  # texts in the side-by-side similarity matrices
LABEL_CHARS = 32  # of a text, in the key to those matrices' numbers
CHOICE_CHARS = 60  # of a text, in the text picker


@dataclass(frozen=True)
class LayerComparison:
    """Two models' layers compared over ``rows`` texts (or words): ``cka`` and ``rsa`` (layers_a+1, layers_b+1)
    tables, indexed "A 0" … and headed "B 0" …, RSA over the first ``rsa_rows`` of them; ``left_out`` words either
    model truncated (words level)."""

    cka: pd.DataFrame
    rsa: pd.DataFrame
    rows: int
    rsa_rows: int
    left_out: int
    level: str
    estimator: str


def _frame(matrix: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(matrix, index=[f"A {i}" for i in range(matrix.shape[0])],
                        columns=[f"B {j}" for j in range(matrix.shape[1])])


def _checked(a: np.ndarray, level: str) -> np.ndarray:
    """Model A's rows, at least 3 of them (RSA ranks their pairs; the debiased estimator needs 4)."""
    what = "texts" if checks.choice(level, "level", LEVELS) == "sentences" else "aligned words"
    a = checks.numbers(a, f"model A's {what}", "(n, layers, hidden)", min_rows=0)
    if len(a) < 3:
        raise ValueError(f"Comparing layers needs at least 3 {what} (RSA ranks their pairs; the debiased estimator "
                         f"needs 4); there {'is' if len(a) == 1 else 'are'} {len(a)}. Use a larger corpus.")
    return a


def rsa_table(a: np.ndarray, b: np.ndarray, level: str = "sentences") -> pd.DataFrame:
    """``cka.rsa_matrix`` of the first ``RSA_ROWS`` rows of ``a`` (n, layers_a+1, d1) and ``b`` (n, layers_b+1, d2), as
    ``LayerComparison.rsa`` holds it. It does not depend on the CKA estimator, so a page keeps it across one."""
    a = _checked(a, level)
    return _frame(rsa_matrix(a[:RSA_ROWS], np.asarray(b)[:RSA_ROWS]))


def compare_layers(a: np.ndarray, b: np.ndarray, estimator: str = "linear CKA", level: str = "sentences",
                   left_out: int = 0, rsa: pd.DataFrame | None = None) -> LayerComparison:
    """CKA (by ``estimator``, a key of ``ESTIMATORS``) and RSA of every layer of ``a`` (n, layers_a+1, d1) against
    every layer of ``b`` (n, layers_b+1, d2), row i of both the same text (or aligned word); ``rsa``: the same
    vectors' ``rsa_table``, when it was kept from another estimator."""
    estimator = checks.choice(estimator, "estimator", ESTIMATORS)
    a = _checked(a, level)
    cka = _frame(cka_matrix(a, b, ESTIMATORS[estimator]))
    rsa = rsa_table(a, b, level) if rsa is None else checks.frame(rsa, "rsa")
    if rsa.shape != cka.shape:
        raise ValueError(f"rsa is a {rsa.shape} table for a {cka.shape} comparison: give rsa_table of the same "
                         "vectors.")
    return LayerComparison(cka, rsa, len(a), min(len(a), RSA_ROWS), checks.whole_number(left_out, "left_out", 0),
                           level, estimator)


def same_model(comparison: LayerComparison) -> bool:
    """Whether the table is that of one model against itself: square, symmetric, 1 along the diagonal."""
    checks.instance(comparison, LayerComparison, "comparison", "compare_layers")
    m = comparison.cka.to_numpy()
    if m.shape[0] != m.shape[1]:
        return False
    diagonal = np.diag(m)[~np.isnan(np.diag(m))]
    return bool(len(diagonal) and np.allclose(diagonal, 1.0, atol=SAME_MODEL_TOLERANCE)
                and np.allclose(m, m.T, atol=SAME_MODEL_TOLERANCE, equal_nan=True))


def colour_range(comparison: LayerComparison) -> tuple[float, float]:
    """The CKA heatmap's colour scale: 0 to 1, reaching down to the lowest value when the debiased estimator
    fell below 0, so that negative cells do not look like 0."""
    checks.instance(comparison, LayerComparison, "comparison", "compare_layers")
    values = comparison.cka.to_numpy()
    lowest = float(np.nanmin(values)) if np.isfinite(values).any() else 0.0
    return min(0.0, np.floor(lowest * 10) / 10), 1.0


def word_pieces(text: str, first: ModelInput, second: ModelInput) -> pd.DataFrame:
    """One text's words and each model's pieces of them, "·"-joined (``first`` and ``second`` are the two models'
    ``Encoder.inputs([text])[0]``); words a model truncated are left out."""
    units, _ = text_units(text, first, second)
    return pd.DataFrame({"word": [text[u.start:u.end] for u in units],
                         "model A pieces": [" · ".join(first.tokens[p] for p in u.first) for u in units],
                         "model B pieces": [" · ".join(second.tokens[p] for p in u.second) for u in units]})


def tokenization_summary(texts: Sequence[str], items: Sequence[ModelInput],
                         unknown: str | None) -> dict[str, float | int]:
    """One model's tokenization of ``texts`` (``items``, its ``Encoder.inputs(texts)``): tokens per text (specials
    left out), pieces per word (words as ``word_alignment`` finds them in the text, the same for both models), the
    share of ``unknown`` pieces and the tokens truncation dropped."""
    texts = checks.texts(texts)
    items = checks.items(items, "items", "ModelInputs, as Encoder.inputs gives them")
    checks.same_rows(texts, items, "texts", "items")
    pieces = sum(not special for item in items for special in item.special)
    words = sum(len(WORD.findall(text)) for text in texts)
    unknowns = sum(token == unknown for item in items for token, special in zip(item.tokens, item.special)
                   if not special)
    return {"tokens per text": pieces / max(len(items), 1), "pieces per word": pieces / max(words, 1),
            "[UNK] share": unknowns / max(pieces, 1),
            "tokens dropped by truncation": sum(item.dropped for item in items)}


def nearest_side_by_side(a: np.ndarray, b: np.ndarray, texts: Sequence[str], query: int, k: int = 5) -> pd.DataFrame:
    """The ``k`` texts nearest to text ``query`` by cosine in each model: a (n, d1) and b (n, d2) at the chosen
    layers, rank by rank."""
    texts = checks.strings(texts, "texts")
    a, b = checks.numbers(a, "a", "(n, d1)"), checks.numbers(b, "b", "(n, d2)")
    checks.same_rows(a, texts, "vectors in a", "texts")
    checks.same_rows(a, b, "vectors in a", "b")
    query = checks.whole_number(query, "query", 0, len(texts) - 1)
    k = min(checks.whole_number(k, "k", 1), len(texts) - 1)
    out = {"rank": range(1, k + 1)}
    for side, vectors in (("A", a), ("B", b)):
        scores = similarity_matrix(vectors, "cosine")[query]
        others = [i for i in np.argsort(-scores, kind="stable") if i != query][:k]
        out |= {f"model {side}": [texts[i] for i in others], f"{side} cosine": scores[others]}
    return pd.DataFrame(out)


def similarity_pair(a: np.ndarray, b: np.ndarray, texts: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """The cosine matrices of the first ``SIDE_TEXTS`` texts in each model, a (n, d1) and b (n, d2) at the chosen
    layers, rows and columns numbered 1, 2, … alike in both, and the key to the numbers ("1 The first words…")."""
    texts = checks.strings(texts, "texts")
    a, b = checks.numbers(a, "a", "(n, d1)"), checks.numbers(b, "b", "(n, d2)")
    checks.same_rows(texts, a, "texts", "a")
    checks.same_rows(texts, b, "texts", "b")
    shown = min(len(texts), SIDE_TEXTS)
    numbers = [str(i + 1) for i in range(shown)]
    key = " · ".join(f"{number} {text[:LABEL_CHARS]}{'…' if len(text) > LABEL_CHARS else ''}"
                     for number, text in zip(numbers, texts))
    frame_a, frame_b = (pd.DataFrame(similarity_matrix(v[:shown], "cosine"), index=numbers, columns=numbers)
                        for v in (a, b))
    return frame_a, frame_b, key


def text_choices(texts: Sequence[str]) -> list[str]:
    """The texts as a picker's options, numbered so that repeated texts stay distinct: "1. The bank…"."""
    return [f"{i + 1}. {text[:CHOICE_CHARS]}{'…' if len(text) > CHOICE_CHARS else ''}"
            for i, text in enumerate(checks.strings(texts, "texts"))]


@dataclass(frozen=True)
class Titles:
    """What the page names the two tables by, and its two lines of "what you are looking at"."""

    cka: str
    rsa: str
    what: str


def comparison_title(comparison: LayerComparison, strategy: str, texts_read: int, texts: int) -> Titles:
    """The titles of ``comparison``'s tables, naming exactly what was compared: the estimator, the vectors (the
    pooling ``strategy``, or words), how many rows, and at the word level how many of the ``texts`` were read."""
    c = checks.instance(comparison, LayerComparison, "comparison", "compare_layers")
    if c.level == "sentences":
        rows, unit = f"{c.rows:,} texts", "texts"
        vectors = f"{strategy}-pooled sentence vectors"
    else:
        cut = f", {c.left_out:,} truncated words left out" if c.left_out else ""
        read = f"all {texts:,} texts" if texts_read >= texts else f"the first {texts_read:,} of {texts:,} texts"
        rows, unit = f"{c.rows:,} words of {read}{cut}", "words"
        vectors = "word vectors (each word's pieces averaged)"
    rsa_rows = f"the first {c.rsa_rows:,} {unit}" if c.rsa_rows < c.rows else rows
    what = (f"Each cell compares one layer of model A (rows) with one layer of model B (columns) on the same {rows}: "
            f"{c.estimator} is 1 when the two layers relate the {unit} to each other alike, whatever rotation or "
            "overall scale separates them, and falls towards 0 as they differ; stretching some directions more than "
            "others changes it. RSA asks the same of the rank order of every pair's cosine (Spearman, −1 to 1).")
    return Titles(f"{c.estimator} of {vectors}, {rows}", f"RSA of {vectors}, {rsa_rows}", what)
