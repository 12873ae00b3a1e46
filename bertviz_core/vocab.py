"""The WordPiece vocabulary as a table: what kinds of entries it holds, and searching it."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

KINDS: tuple[str, ...] = ("whole word", "## piece", "single character", "[unused]", "special")
_UNUSED = re.compile(r"^\[unused\d+\]$")


def token_kind(token: str, specials: frozenset[str]) -> str:
    """Classify one vocabulary entry into one of ``KINDS``."""
    if token in specials:
        return "special"
    if _UNUSED.match(token):
        return "[unused]"
    if token.startswith("##"):
        return "## piece"
    if len(token) == 1:
        return "single character"
    return "whole word"


def vocabulary_table(tokenizer: PreTrainedTokenizerBase) -> pd.DataFrame:
    """Every entry, sorted by id: columns id, token, kind."""
    specials = frozenset(tokenizer.all_special_tokens)
    pairs = sorted(tokenizer.get_vocab().items(), key=lambda item: item[1])
    return pd.DataFrame({
        "id": [i for _, i in pairs],
        "token": [t for t, _ in pairs],
        "kind": pd.Categorical([token_kind(t, specials) for t, _ in pairs], categories=KINDS),
    })


def kind_counts(vocab: pd.DataFrame) -> pd.Series:
    """How many entries of each kind, in ``KINDS`` order."""
    return vocab["kind"].value_counts().reindex(list(KINDS), fill_value=0)


def search_vocabulary(vocab: pd.DataFrame, pattern: str, regex: bool = False) -> pd.DataFrame:
    """Entries whose token contains ``pattern`` (or matches it as a regular expression)."""
    if regex:
        try:
            compiled = re.compile(pattern)
        except re.error as err:
            raise ValueError(f"'{pattern}' is not a valid regular expression: {err}.") from err
        hits = vocab["token"].map(lambda t: compiled.search(t) is not None)
    else:
        hits = vocab["token"].str.contains(pattern, regex=False)
    return vocab[hits.astype(bool)]
