"""The WordPiece vocabulary as a table: what kinds of entries it holds, and searching it.

Searching by regular expression uses RE2, which runs in time linear in the text whatever the
pattern: a pattern such as ``(.*.*)*$x`` that makes a backtracking engine (Python's ``re``) run
for minutes answers at once. RE2 has no lookaround and no backreferences; such patterns are
refused with a message.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pandas as pd
import re2

import bertviz_core.checks as checks

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

KINDS: tuple[str, ...] = ("whole word", "## piece", "single character", "[unused]", "special")
MAX_PATTERN = 200  # characters of a search pattern
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a bad pattern is the user's, reported as a ValueError, not a server log line
_RE2_OPTIONS.max_mem = 8 << 20  # bytes of compiled program; larger patterns are refused
_UNUSED = re.compile(r"^\[unused\d+\]$")


def token_kind(token: str, specials: frozenset[str]) -> str:
    """Classify one vocabulary entry into one of ``KINDS``."""
    token = checks.text(token, "token")
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


def token_names(tokenizer: PreTrainedTokenizerBase, count: int) -> list[str]:
    """Vocabulary entries by id for ``count`` ids; a model's output may be wider than its tokenizer, and the
    ids past it are named "[id N]"."""
    count = checks.whole_number(count, "count", 0)
    known = tokenizer.convert_ids_to_tokens(list(range(min(count, len(tokenizer)))))
    return known + [f"[id {i}]" for i in range(len(known), count)]


def kind_counts(vocab: pd.DataFrame) -> pd.Series:
    """How many entries of each kind, in ``KINDS`` order."""
    return checks.frame(vocab, "vocab (vocabulary_table's frame)", ("kind",))["kind"].value_counts().reindex(list(KINDS), fill_value=0)


def search_vocabulary(vocab: pd.DataFrame, pattern: str, regex: bool = False) -> pd.DataFrame:
    """Entries whose token contains ``pattern`` (or matches it as an RE2 regular expression).

    ``ValueError`` for a pattern longer than ``MAX_PATTERN`` characters or one RE2 cannot compile.
    """
    checks.frame(vocab, "vocab (vocabulary_table's frame)", ("token",))
    pattern = checks.text(pattern, "The search")
    if len(pattern) > MAX_PATTERN:
        raise ValueError(f"The search is {len(pattern):,} characters long; the limit is {MAX_PATTERN}.")
    if regex:
        try:
            compiled = re2.compile(pattern, _RE2_OPTIONS)
        except re2.error as err:
            reason = err.args[0].decode("utf-8", "replace") if err.args and isinstance(err.args[0], bytes) else err
            raise ValueError(f"'{pattern}' is not a valid regular expression here: {reason}. This search uses RE2 "
                             "syntax, which runs in linear time: no lookaround (?=, ?<=) and no backreferences "
                             r"(\1).") from err
        hits = vocab["token"].map(lambda t: compiled.search(t) is not None)
    else:
        hits = vocab["token"].str.contains(pattern, regex=False)
    return vocab[hits.astype(bool)]
