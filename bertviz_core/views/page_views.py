"""What the pages lay out but may not decide: defaults, labels, counts and the wording that depends on a number.

A page reads its widgets and lays out what these functions return (``tests/test_architecture.py`` checks that
it computes nothing itself). Each takes facts the page already holds (a model's layer count, a core result)
and is cheap: no model run, no search. Kept light to import (numpy and pandas only), as the first page uses it.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from bertviz_core.measures.masked import MaskLens

# ---- layers, heads and texts (every page) --------------------------------------------------------------


def state_count(num_layers: int) -> int:
    """Hidden states per token: the embedding layer's output and one per transformer layer."""
    return num_layers + 1


def layer_numbers(num_layers: int) -> list[int]:
    """Every layer a picker offers, 0 (the embeddings) to ``num_layers``."""
    return list(range(state_count(num_layers)))


def head_numbers(heads: int) -> list[int]:
    """Heads as pickers number them, from 1."""
    return list(range(1, heads + 1))


def clip(text: str, chars: int) -> str:
    """``text`` cut to ``chars`` characters, with "…" when something was cut."""
    return f"{text[:chars]}{'…' if len(text) > chars else ''}"


@dataclass(frozen=True)
class Lines:
    """A text box read one text per line: the non-empty lines stripped, how many empty ones were left out,
    and whether a text occurs more than once."""

    texts: tuple[str, ...]
    skipped: int
    repeated: bool

    @property
    def too_few_to_compare(self) -> bool:
        """Fewer than two texts: nothing to compare."""
        return len(self.texts) < 2


def read_lines(raw: str) -> Lines:
    """The texts of a box with one per line (see ``Lines``)."""
    texts = tuple(line.strip() for line in raw.splitlines() if line.strip())
    skipped = len([line for line in raw.splitlines() if not line.strip()])
    return Lines(texts, skipped, len(set(texts)) < len(texts))


# ---- Attention -----------------------------------------------------------------------------------------


def head_view(weights: np.ndarray, layer: int, heads: Sequence[int]) -> tuple[np.ndarray, str]:
    """The head view of ``weights`` (layers, heads, tokens, tokens) at ``layer`` and ``heads`` as the pickers
    number them (from 1): the (tokens, tokens) weights, the heads' mean, and what they are ("head 2", "mean of
    heads 1, 3")."""
    from bertviz_core.measures.attention import mean_weights

    shown = mean_weights(weights, [layer - 1], [h - 1 for h in heads])
    which = f"head {heads[0]}" if len(heads) == 1 else f"mean of heads {', '.join(map(str, heads))}"
    return shown, which


def model_view_note(thumbnails: np.ndarray, tokens: int) -> str:
    """The model view's caption for ``thumbnails`` (layers, heads, b, b) of a text of ``tokens`` tokens."""
    from bertviz_core.measures.attention import THUMBNAIL_TOKENS

    layers, heads = thumbnails.shape[:2]
    grouped = thumbnails.shape[-1] < tokens
    return (f"All {layers} × {heads} = {layers * heads} heads, each scaled to its own largest weight. "
            + (f"The text has {tokens} tokens: each thumbnail groups them into {THUMBNAIL_TOKENS} blocks "
               "of neighbouring tokens (a cell is the attention from one block to another)." if grouped
               else "Pick a layer and head above to see one in full."))


# ---- Compare sentences ---------------------------------------------------------------------------------


def compare_default_layer(num_layers: int) -> int:
    """Compare sentences starts on the second-to-last layer."""
    return num_layers - 1


@dataclass(frozen=True)
class SentenceLabels:
    """How Compare sentences names its texts: ``numbers`` ("1", "2", …) label the matrices, ``names`` (50
    characters) the picker and downloads, ``short`` (24) the ranking chart, ``key`` (number, 80 characters)."""

    numbers: list[str]
    names: list[str]
    short: list[str]
    key: list[tuple[str, str]]


def sentence_labels(texts: Sequence[str]) -> SentenceLabels:
    """``texts`` named as Compare sentences shows them (see ``SentenceLabels``)."""
    numbers = [str(i) for i in range(1, len(texts) + 1)]
    return SentenceLabels(numbers, [f"{n}: {clip(t, 50)}" for n, t in zip(numbers, texts)],
                          [f"{n}: {clip(t, 24)}" for n, t in zip(numbers, texts)],
                          [(n, clip(t, 80)) for n, t in zip(numbers, texts)])


def tokens_preview(tokens: Sequence[str]) -> str:
    """A pair's tokens as the page lists them: how many, and the first 24."""
    return f"{len(tokens)} ({' '.join(tokens[:24])}{' …' if len(tokens) > 24 else ''})"


# ---- Masked words --------------------------------------------------------------------------------------


def mask_names(positions: Sequence[int]) -> list[str]:
    """Each mask as its picker names it, numbered from 1: "mask 2 (token 6)"."""
    return [f"mask {m} (token {position})" for m, position in enumerate(positions, start=1)]


def miswritten_note(miswritten: int, mask_token: str) -> str:
    """Why ``miswritten`` (at least 1) mask-like spellings are not masks."""
    return (f"{miswritten} mask{'s are' if miswritten > 1 else ' is'} not written {mask_token} in "
            "capitals, so the tokenizer reads them as ordinary pieces.")


def settles(knows: int, num_layers: int) -> str:
    """From where on the final answer is the top guess, ``knows`` being ``MaskLens.first_layer_at_top``."""
    from bertviz_core.figures import layer_label

    return ("only after the last layer" if knows == num_layers else
            "already in the embeddings, before any attention" if knows == 0 else f"from {layer_label(knows)} on")


def per_mask(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """One frame per mask, stacked, with the mask's number (from 1) in a ``mask`` column."""
    return pd.concat([frame.assign(mask=m) for m, frame in enumerate(frames, start=1)])


def every_guess(lenses: Sequence[MaskLens], k: int) -> pd.DataFrame:
    """Every mask's ``k`` best guesses (last layer), with the mask's number and the guess's rank, from 1."""
    return pd.concat([one.predictions(k).assign(mask=m, rank=range(1, k + 1)) for m, one in enumerate(lenses, start=1)])


# ---- Sentence pooling, Task measures -------------------------------------------------------------------


def pooling_default_layers(num_layers: int) -> list[int]:
    """Sentence pooling's first grid: the embeddings, the middle, the second-to-last and the last layer."""
    return sorted({0, num_layers // 2, max(0, num_layers - 1), num_layers})


def default_cell(names: Sequence[str], layers: Sequence[int]) -> int:
    """The position of the cell a code panel starts on, among the chosen cells' ``names`` ("mean · layer 6"):
    mean pooling at the highest chosen layer, or the first cell when that is not chosen."""
    from bertviz_core.figures import layer_label

    default = f"mean · {layer_label(max(layers))}"
    return names.index(default) if default in names else 0


DEFAULT_PAIR_CORRECTION = "whitening"  # Task measures' correlation beside raw cosines, as the whitening papers


def folds_note(folds: int) -> str:
    """What the probe's protocol adds when this corpus had fewer folds than the protocol's."""
    from bertviz_core.measures.task_measures import PROBE_FOLDS

    return f" **This corpus: {folds} folds**, as the note above says." if folds != PROBE_FOLDS else ""


def map_title(layer: int | None, trust: float) -> str:
    """A map panel's title: its layer and its trustworthiness (NaN when every point is the same: no map)."""
    from bertviz_core.figures import layer_label

    return f"{layer_label(layer)}\n{'all identical' if np.isnan(trust) else f'trust {trust:.2f}'}"


def grid_panels(rows: Sequence[Sequence[Any]]) -> tuple[list[tuple[int, int, Any]], int]:
    """A grid's panels as (row, column, cell), both from 1, and how many columns its widest row takes."""
    return ([(r, c, cell) for r, row in enumerate(rows, start=1) for c, cell in enumerate(row, start=1)],
            max(map(len, rows)))


# ---- Similar contexts ----------------------------------------------------------------------------------


def neighbours_listed(k: int, tokens: int) -> int:
    """How many neighbours a list shows: ``k``, or every token of a corpus of fewer."""
    return min(k, tokens)


def fewer_tokens_note(k: int, tokens: int) -> str | None:
    """The warning for a corpus of fewer than ``k`` tokens; None otherwise."""
    return f"The corpus has {tokens:,} tokens, fewer than k = {k}: all of them are listed." if k > tokens else None


def rounded(frame: pd.DataFrame) -> pd.DataFrame:
    """A table's numbers rounded to the 3 decimals it shows."""
    return frame.round(3)


# ---- Tokenization --------------------------------------------------------------------------------------

VOCAB_SHOWN = 500  # vocabulary rows shown at most, of a slice or a search


def default_padding(tokens: int, max_length: int) -> int:
    """The padded length T a page starts on: 32, or the text's length when longer, within the model's limit."""
    return min(max(tokens, 32), max_length)


def token_counts(tokens: pd.DataFrame, continuation: str) -> tuple[int, int]:
    """Words, and pieces that continue a word (``piece`` equal to ``continuation``), of ``tokens``
    (``tokens.annotate_tokens``' frame)."""
    return tokens["word_index"].dropna().nunique(), int((tokens["piece"] == continuation).sum())


def vocab_window(size: int) -> tuple[int, int]:
    """The vocabulary browser's last id and first id shown, for a vocabulary of ``size`` entries."""
    return size - 1, min(5000, size - 1)


def vocab_rows(vocab: pd.DataFrame, start: int, count: int) -> pd.DataFrame:
    """``count`` rows of the vocabulary table from id ``start``."""
    return vocab.iloc[start:start + count]


# ---- Word in context -----------------------------------------------------------------------------------


def default_word_strategy(strategies: Sequence[str]) -> int:
    """Word in context's first word vector: "sum of last 4" (of all layers on a smaller model), the tutorial's;
    on a one-layer model that is the last layer, the first strategy."""
    return next((i for i, name in enumerate(strategies) if name.startswith("sum of last ")), 0)


def missing_occurrences(texts: Sequence[str], found: int) -> tuple[str, str] | None:
    """When a word occurs ``found`` times, fewer than the two needed: how often ("does not occur", "occurs
    once") and the texts searched, quoted and cut to 60 characters; None when there are enough."""
    if found >= 2:
        return None
    return ({0: "does not occur", 1: "occurs once"}[found], "; ".join(f"“{clip(t, 60)}”" for t in texts))


def tutorial_table(rows: list[dict], model: str) -> pd.DataFrame:
    """``corpora.tutorial.tutorial_comparison``'s rows as a table: the tutorial's cosines as text (one type per
    column, not numbers mixed with a note), "not reported" where it gave none."""
    shown = pd.DataFrame(rows).assign(
        tutorial=lambda f: [f"{v:.2f}" if pd.notna(v) else "not reported" for v in f["tutorial"]])
    return shown.rename(columns={"tutorial": "tutorial (bert-base-uncased)", "this_model": f"this model ({model})"})
