"""One vector per word in each of two models, so that token-level measures (CKA) can compare models whose
tokenizers cut the same text differently (WordPiece's "un ##believ ##able" against BPE's "unbel ievable").

A word is a run of letters and digits, apostrophes inside it included ("don't"), found in the text itself;
punctuation is no word. The two models' pieces are matched to it through their character offsets. Where a piece of
either model covers characters of two words (a piece "e.g" of "e.g."), the words it joins are one unit, so each
unit is made of whole pieces in both models. A unit's vector at each layer is the mean of its pieces' hidden
states. A unit that either model cut off, wholly or in part, by truncation to its maximum length is left out, and
counted.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

import bertviz_core.checks as checks
from bertviz_core.model.encoding import ModelInput

if TYPE_CHECKING:
    from bertviz_core.model.encoder import Encoder

WORD = re.compile(r"\w+(?:['’]\w+)*")  # letters and digits, with apostrophes inside ("don't"); no punctuation


@dataclass(frozen=True)
class Unit:
    """One aligned word (or words joined by a piece) of text ``text``: characters [start, end) and each model's
    token positions in that text's input."""

    text: int
    start: int
    end: int
    first: tuple[int, ...]
    second: tuple[int, ...]


@dataclass(frozen=True)
class AlignedWords:
    """Aligned word vectors: ``first`` (units, layers_a, d1) and ``second`` (units, layers_b, d2), row i the same
    unit ``units[i]`` in both; ``left_out`` counts the words that either model truncated, in the ``texts_read``
    first texts the units come from."""

    units: list[Unit]
    first: np.ndarray
    second: np.ndarray
    left_out: int
    texts_read: int


def _pieces(item: ModelInput, spans: list[tuple[int, int]]) -> list[list[int]]:
    """For each of the text's word spans, the positions of ``item``'s non-special pieces that overlap it."""
    owned: list[list[int]] = [[] for _ in spans]
    starts = [start for start, _ in spans]
    for position, (start, end) in enumerate(item.offsets):
        if item.special[position] or end <= start or item.sequences[position] != 0:
            continue
        k = max(np.searchsorted(starts, start, side="right") - 1, 0)
        while k < len(spans) and spans[k][0] < end:
            if spans[k][1] > start:
                owned[k].append(position)
            k += 1
    return owned


def _covered_to(item: ModelInput) -> float:
    """The character up to which the model saw the text: its last piece's end when it truncated, else no limit."""
    ends = [end for position, (_, end) in enumerate(item.offsets) if not item.special[position]]
    return max(ends, default=0) if item.dropped else float("inf")


def text_units(text: str, first: ModelInput, second: ModelInput, index: int = 0) -> tuple[list[Unit], int]:
    """The aligned units of one text, tokenized by both models (``Encoder.inputs``), and how many of its words were
    left out because a model truncated them."""
    spans = [match.span() for match in WORD.finditer(checks.text(text))]
    for name, item in (("first", first), ("second", second)):
        checks.instance(item, ModelInput, name, "Encoder.inputs")
    owned = (_pieces(first, spans), _pieces(second, spans))
    joined = [False] * len(spans)  # joined[k]: word k and word k+1 share a piece of either model
    for model in owned:
        seen: dict[int, int] = {}
        for k, positions in enumerate(model):
            for position in positions:
                if position in seen:
                    joined[seen[position]:k] = [True] * (k - seen[position])
                seen.setdefault(position, k)
    limits = (_covered_to(first), _covered_to(second))
    units, left_out, k = [], 0, 0
    while k < len(spans):
        last = k
        while joined[last]:
            last += 1
        pieces = [sorted({p for w in range(k, last + 1) for p in model[w]}) for model in owned]
        end = spans[last][1]
        if all(pieces) and end <= min(limits):
            units.append(Unit(index, spans[k][0], end, tuple(pieces[0]), tuple(pieces[1])))
        else:
            left_out += last - k + 1
        k = last + 1
    return units, left_out


def align(texts: Sequence[str], first: Sequence[ModelInput], second: Sequence[ModelInput],
          max_units: int | None = None) -> tuple[list[Unit], int]:
    """Every text's units, in text order, and the words left out in all: ``first`` and ``second`` are the two
    models' ``Encoder.inputs(texts)``. With ``max_units``, texts are read in order until that many units are found
    (the last text read is taken whole)."""
    max_units = None if max_units is None else checks.whole_number(max_units, "max_units", 1)
    texts = checks.texts(texts)
    for name, items in (("first", first), ("second", second)):
        checks.same_rows(texts, checks.items(items, name, "ModelInputs, as Encoder.inputs gives them"), "texts", name)
    units, left_out = [], 0
    for index, (text, a, b) in enumerate(zip(texts, first, second)):
        if max_units is not None and len(units) >= max_units:
            break
        found, dropped = text_units(text, a, b, index)
        units += found
        left_out += dropped
    return units, left_out


def _vectors(encoder: Encoder, items: list[ModelInput], texts: list[str], units: list[Unit], side: str,
             progress: Callable[[int, int], None] | None) -> np.ndarray:
    """Each unit's mean piece vector at every layer from one model, (units, layers+1, hidden) float32, keeping only
    the units' vectors of each batch."""
    rows: dict[int, list[int]] = {}
    for row, unit in enumerate(units):
        rows.setdefault(unit.text, []).append(row)
    order = sorted(rows)
    info = encoder.info
    out = np.zeros((len(units), info.num_layers + 1, info.hidden_size), dtype=np.float32)
    for index, encoding in encoder.encode_inputs([items[i] for i in order], [texts[i] for i in order], progress):
        for row in rows[order[index]]:
            out[row] = encoding.hidden_states[:, list(getattr(units[row], side))].mean(axis=1)
    return out


def aligned_words(first: Encoder, second: Encoder, texts: Sequence[str],
                  progress: Callable[[int, int], None] | None = None, max_units: int | None = None) -> AlignedWords:
    """The texts' words as vectors of both models, row for row (module docstring), from the first texts up to
    ``max_units`` words (``align``); one forward pass of each model over the texts that hold a unit.
    ``progress(done, total)`` counts the texts of both passes."""
    texts = checks.texts(texts)
    first, second = checks.encoder(first, "first"), checks.encoder(second, "second")
    progress = checks.callback(progress)
    items = first.inputs(texts), second.inputs(texts)
    units, left_out = align(texts, *items, max_units=max_units)
    total = 2 * len({unit.text for unit in units})
    vectors = [_vectors(model, model_items, texts, units, side,
                        None if progress is None else (lambda done, _, base=base: progress(base + done, total)))
               for base, model, model_items, side in ((0, first, items[0], "first"),
                                                      (total // 2, second, items[1], "second"))]
    capped = max_units is not None and len(units) >= max_units
    return AlignedWords(units, vectors[0], vectors[1], left_out, units[-1].text + 1 if capped else len(texts))
