"""The BERT word-embedding tutorial's "bank" sentence and the numbers it reports, beside the loaded model's."""
from __future__ import annotations

from collections.abc import Sequence

from bertviz_core.measures.similarity import similarity_matrix
from bertviz_core.words.word_vectors import Occurrence, Reducer, stack

# The tutorial's comparisons of "bank" in its sentence: occurrence pairs (in order: vault, robber,
# river) and the cosine it reports for bert-base-uncased with the sum of the last four layers.
TUTORIAL_PAIRS: tuple[tuple[int, int, str, float | None], ...] = (
    (0, 1, "bank vault ↔ bank robber (same sense)", 0.94),
    (1, 2, "bank robber ↔ river bank (different senses)", 0.69),
    (0, 2, "bank vault ↔ river bank (different senses)", None),
)
# Similar contexts' default query: the tutorial's second "bank" (the robber's), the one it compares both ways.
QUERY_WORD, QUERY_NTH = "bank", 2
_PIECE_MARKS = "▁Ġ"  # SentencePiece's and byte-level BPE's word-start marks


def query_token(tokens: Sequence[str]) -> int:
    """The token Similar contexts starts from: the text's second "bank" (any case, with or without a
    tokenizer's word-start mark) when it has two, else its first token after [CLS] (0 for a text of one token)."""
    banks = [i for i, token in enumerate(tokens) if token.lstrip(_PIECE_MARKS).lower() == QUERY_WORD]
    return banks[QUERY_NTH - 1] if len(banks) >= QUERY_NTH else min(1, max(len(tokens) - 1, 0))


TUTORIAL_STRATEGY = "sum of last 4"  # the word vector the tutorial compared (a model of 4 layers or more has it)


def tutorial_comparison(found: Sequence[Occurrence], sentence: int, strategy: Reducer) -> list[dict]:
    """The tutorial's three "bank" comparisons for the occurrences in text ``sentence``.

    Returns rows: comparison, tutorial (its reported cosine, or None), this_model (our cosine).
    """
    banks = [o for o in found if o.sentence == sentence]
    if len(banks) != 3:
        return []
    sims = similarity_matrix(strategy.fn(stack(banks)))
    return [{"comparison": name, "tutorial": reported, "this_model": float(sims[i, j])}
            for i, j, name, reported in TUTORIAL_PAIRS]
