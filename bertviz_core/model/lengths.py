"""Texts measured in tokens: what truncation cut from them, and whether a corpus fits a page's token budget.

Every page that cuts text says so with ``cut_note``; every page that takes an upload states its token budget
(``page_registry.PageEntry.token_budget``) and refuses a file past it with ``budget_note``, before any model run.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import bertviz_core.checks as checks

LISTED = 8  # cut texts named by number in a note; the others are counted


@dataclass(frozen=True)
class Lengths:
    """Token counts of texts (``Encoder.lengths``). ``kept``: (texts,) the tokens each gives the model, special
    tokens included, after truncation; ``dropped``: (texts,) the tokens truncation cut from each."""

    kept: np.ndarray
    dropped: np.ndarray

    @classmethod
    def of(cls, counts: np.ndarray) -> Lengths:
        """From ``Encoder.lengths``' (texts, 2) array."""
        counts = checks.numbers(counts, "counts", "(texts, 2)", min_rows=0)
        if counts.shape[1:] != (2,) or (counts < 0).any() or (counts % 1).any():
            raise ValueError(f"counts must be Encoder.lengths' (texts, 2) whole numbers of tokens; they have shape "
                             f"{counts.shape}.")
        counts = counts.astype(np.int64)
        return cls(counts[:, 0], counts[:, 1])

    @property
    def tokens(self) -> int:
        """Tokens the model runs over, all texts together."""
        return int(self.kept.sum())

    def fitting(self, budget: int) -> int:
        """How many texts, from the first, fit within ``budget`` tokens together."""
        return int(np.searchsorted(np.cumsum(self.kept), budget, side="right"))


def cut_note(max_length: int, dropped: Sequence[int], noun: str = "text", numbered: bool = False) -> str | None:
    """What truncation cut, as a page says it; None when nothing was cut. ``dropped``: tokens cut from each
    text (``Lengths.dropped``, or one text's ``dropped`` in a list); ``numbered`` names the cut texts by their
    number (1 = the first), for a short list the user typed."""
    max_length = checks.whole_number(max_length, "max_length", 1)
    dropped = [checks.whole_number(d, "A count of dropped tokens", 0)
               for d in checks.items(dropped, "dropped", "counts of dropped tokens")]
    noun = checks.text(noun, "noun")
    cut = [(i, d) for i, d in enumerate(dropped) if d]
    if not cut:
        return None
    if len(dropped) == 1:
        end = "the end of its longer text" if noun == "pair" else "its end"  # pairs are cut "longest_first"
        return (f"The {noun} is longer than the model's {max_length:,} tokens: {cut[0][1]:,} tokens were dropped "
                f"from {end}; only the rest reaches the model.")
    where = ""
    if numbered:
        named = ", ".join(f"{i + 1} ({d:,})" for i, d in cut[:LISTED])
        where = f"; by {noun}: {named}" + (f" and {len(cut) - LISTED:,} more" if len(cut) > LISTED else "")
    plural = noun + "s"
    are, them = ("is", "its") if len(cut) == 1 else ("are", "their")
    return (f"{len(cut):,} of the {len(dropped):,} {plural} {are} longer than the model's {max_length:,} tokens and "
            f"cut to fit ({sum(d for _, d in cut):,} tokens dropped in all, at most {max(d for _, d in cut):,} from "
            f"one{where}). Only {them} first part is used.")


def token_budget(default: int) -> int:
    """A page's token budget for an upload: BERTVIZ_MAX_TOKENS when the server sets it, else ``default``."""
    default = checks.whole_number(default, "The default token budget", 1)
    value = os.environ.get("BERTVIZ_MAX_TOKENS", "")
    return int(value) if value.isdigit() and int(value) > 0 else default


def budget_note(lengths: Lengths, budget: int, page_title: str, noun: str = "row") -> str | None:
    """Why an upload is refused before any model run, when its texts hold more than ``budget`` tokens (as the
    model receives them, after truncation); None when it fits."""
    checks.instance(lengths, Lengths, "lengths", "Lengths.of")
    budget = checks.whole_number(budget, "The token budget", 1)
    if lengths.tokens <= budget:
        return None
    fit = lengths.fitting(budget)
    return (f"This file holds {lengths.tokens:,} tokens as the model reads them; {page_title} takes at most "
            f"{budget:,} tokens per upload, so nothing was computed. Upload fewer or shorter {noun}s: the first "
            f"{fit:,} of its {len(lengths.kept):,} {noun}s would fit.")
