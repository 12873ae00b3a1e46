"""One word in many contexts: finding it, merging its WordPiece pieces, and the layer strategies.

Two registries of ``Reducer`` live here. ``SUBWORD_RULES`` merge a word's pieces (mean, sum, first, last).
``word_strategies(num_layers)`` turns a word's per-layer vectors (layers+1, hidden) into one
vector: each single layer, last, second-to-last, sum / concat / mean of the last four, sum of
all transformer layers, and the embedding layer. A new strategy is one entry; every page picks
it up.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

import bertviz_core.checks as checks
from bertviz_core.model.encoding import Encoding, check_unicode


@dataclass(frozen=True)
class Reducer:
    """A registry entry: ``fn`` on numpy arrays, and ``code``, the same in plain torch for the teaching panel."""

    fn: Callable[[np.ndarray], np.ndarray]
    code: str


SUBWORD_RULES: dict[str, Reducer] = {  # pieces (layers+1, pieces, hidden) -> (layers+1, hidden)
    "mean": Reducer(lambda pieces: pieces.mean(axis=1), "pieces.mean(1)"),
    "sum": Reducer(lambda pieces: pieces.sum(axis=1), "pieces.sum(1)"),
    "first": Reducer(lambda pieces: pieces[:, 0], "pieces[:, 0]"),
    "last": Reducer(lambda pieces: pieces[:, -1], "pieces[:, -1]"),
}
CONTEXT_WORDS = 2  # words either side in an occurrence's label
MARKS = ("«", "»")  # around the word a snippet is about


@dataclass(frozen=True)
class Occurrence:
    """One whole-word occurrence. ``vectors`` is float32 (layers+1, hidden), pieces merged."""

    sentence: int  # index into the texts
    positions: list[int]  # token indices of its pieces
    pieces: list[str]
    start: int  # character offsets into the text
    end: int
    context: str  # a short snippet, e.g. "…the bank vault…"
    vectors: np.ndarray


def check_word(word: str) -> str:
    """The word, stripped; ``ValueError`` for empty, punctuation-only or multi-word input."""
    if not isinstance(word, str) or not word.strip():
        raise ValueError("Enter a word to look for, e.g. 'bank'.")
    word = check_unicode(word.strip(), "The word")
    if not re.search(r"\w", word):
        raise ValueError(f"'{word}' has no letters or digits: enter a word, e.g. 'bank'.")
    if re.search(r"\s", word):
        raise ValueError(f"'{word}' is more than one word: this view follows one word at a time.")
    return word


def find_spans(text: str, word: str) -> list[tuple[int, int]]:
    """Character spans of every whole-word, case-insensitive occurrence of ``word`` (not empty) in ``text``."""
    text, word = checks.text(text), checks.text(word, "The word")
    if not word.strip():
        raise ValueError("The word is empty: enter a word to look for, e.g. 'bank'.")
    pattern = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)
    return [m.span() for m in pattern.finditer(text)]


def word_owners(text: str) -> list[tuple[int, int] | None]:
    """For each character of ``text``, the span of the whole word it belongs to (a run of letters and digits,
    the words ``find_spans`` finds), or None for spaces and punctuation."""
    text = checks.text(text)
    owners: list[tuple[int, int] | None] = [None] * len(text)
    for match in re.finditer(r"\w+", text):
        owners[match.start():match.end()] = [match.span()] * (match.end() - match.start())
    return owners


def word_span(owners: Sequence[tuple[int, int] | None], start: int, end: int) -> tuple[int, int]:
    """The whole word a token's characters [start, end) fall in (``owners`` from ``word_owners``): the first word
    among them, or the token's own span when it holds none (punctuation). An empty span counts the character
    at ``start``."""
    for char in range(start, max(end, start + 1)):
        if char < len(owners) and owners[char] is not None:
            return owners[char]
    return start, end


def snippet(text: str, start: int, end: int, marks: tuple[str, str] = MARKS, words: int = CONTEXT_WORDS) -> str:
    """``text[start:end]`` between ``marks`` (« and » unless told otherwise, so that a word that occurs twice in
    a sentence shows which occurrence is meant), with up to ``words`` words either side, and the rest of a word
    the span is part of: a "." shows after its word, a piece inside its word. 0 <= start <= end <= len(text)."""
    text = checks.text(text)
    start = checks.whole_number(start, "start", 0, len(text))
    end = checks.whole_number(end, "end", start, len(text))
    left = re.search(rf"(?:\S+\s+){{0,{words}}}\S*$", text[:start]).group(0)
    right = re.match(rf"\S*(?:\s+\S+){{0,{words}}}", text[end:]).group(0)
    return "…" + " ".join((left + marks[0] + text[start:end] + marks[1] + right).split()) + "…"


def occurrences(encodings: Sequence[Encoding], word: str, subword: str = "mean") -> list[Occurrence]:
    """Every occurrence of ``word`` in already-encoded texts; no model call.

    An occurrence cut off by truncation is left out.
    """
    word = check_word(word)
    merge = SUBWORD_RULES[checks.choice(subword, "subword rule", SUBWORD_RULES)].fn
    encodings = checks.items(encodings, "encodings", "Encodings (Encoder.encode's output)")
    for encoding in encodings:
        checks.instance(encoding, Encoding, "Each of encodings", "Encoder.encode")
    found = []
    for index, enc in enumerate(encodings):
        for start, end in find_spans(enc.text, word):
            positions = [i for i, (s, e) in enumerate(enc.offsets)
                         if enc.word_ids[i] is not None and e > s and s >= start and e <= end]
            if not positions:
                continue
            found.append(Occurrence(
                sentence=index, positions=positions, pieces=[enc.tokens[i] for i in positions],
                start=start, end=end, context=snippet(enc.text, start, end),
                vectors=merge(enc.hidden_states[:, positions]).astype(np.float32),
            ))
    return found


def one_piece_everywhere(found: Sequence[Occurrence]) -> bool:
    """Whether the word is a single WordPiece token in every occurrence: then every subword rule gives the
    same vector."""
    return all(len(o.positions) == 1 for o in found)


def suggest_words(texts: Sequence[str], word: str, limit: int = 8) -> list[str]:
    """Words present in the texts that look like ``word`` (or the most frequent ones), at most ``limit`` (>= 1)."""
    texts, word = checks.strings(texts, "texts"), checks.text(word, "The word")
    limit = checks.whole_number(limit, "limit", 1)
    words = [w.lower() for text in texts for w in re.findall(r"\w+", text)]
    close = difflib.get_close_matches(word.lower(), sorted(set(words)), n=limit, cutoff=0.6)
    if close:
        return close
    counts: dict[str, int] = {}
    for w in words:
        if len(w) > 3:
            counts[w] = counts.get(w, 0) + 1
    return sorted(counts, key=lambda w: -counts[w])[:limit]


def word_strategies(num_layers: int) -> dict[str, Reducer]:
    """The word-vector strategies for a model with ``num_layers`` layers, each computation under one name
    (``distinct``): layer 0 is the "embedding layer", transformer layer L the "last layer".

    Each ``fn`` maps (..., layers+1, hidden) to (..., dim); each ``code`` does the same to one
    word's ``states`` (layers+1, hidden). ``num_layers`` is a whole number of at least 1.
    """
    num_layers = checks.whole_number(num_layers, "num_layers", 1)
    lo = max(1, num_layers - 3)  # the last four transformer layers are lo..L, or all of them when fewer
    last4, n = slice(lo, num_layers + 1), num_layers - lo + 1  # n: named by what it takes ("last 2" of 2)
    combined = {
        "last layer": Reducer(lambda v: v[..., num_layers, :], "states[-1]"),
        "second-to-last": Reducer(lambda v: v[..., max(0, num_layers - 1), :], "states[-2]"),
        f"sum of last {n}": Reducer(lambda v: v[..., last4, :].sum(axis=-2), f"states[{lo}:].sum(0)"),
        f"concat of last {n}": Reducer(lambda v: v[..., last4, :].reshape(*v.shape[:-2], -1),
                                       f"torch.cat(list(states[{lo}:]))"),
        f"mean of last {n}": Reducer(lambda v: v[..., last4, :].mean(axis=-2), f"states[{lo}:].mean(0)"),
        "sum of all layers": Reducer(lambda v: v[..., 1:, :].sum(axis=-2), "states[1:].sum(0)"),
        "embedding layer": Reducer(lambda v: v[..., 0, :], "states[0]"),
    }
    singles = {f"layer {k}": Reducer(lambda v, k=k: v[..., k, :], f"states[{k}]")
               for k in range(num_layers + 1)}
    return distinct({**combined, **singles}, num_layers)


NAMED_FIRST = ("embedding layer", "last layer", "second-to-last")  # the names a computation keeps first


def distinct(strategies: dict[str, Reducer], num_layers: int) -> dict[str, Reducer]:
    """Each computation once, in the given order, under one name: ``NAMED_FIRST``'s, else its first. "layer 0"
    is the "embedding layer", "layer L" the "last layer", and on a small model "sum of all layers" may be "sum of
    last 2": a grid with a column per strategy then shows no column twice under two names. Two strategies are
    the same when they give the same numbers for random states (1, layers+1, 2)."""
    states = np.random.default_rng(0).normal(size=(1, num_layers + 1, 2))
    named = {}
    for name in [*NAMED_FIRST, *strategies]:
        out = np.asarray(strategies[name].fn(states))
        named.setdefault((out.shape, out.tobytes()), name)
    kept = set(named.values())
    return {name: strategy for name, strategy in strategies.items() if name in kept}


def stack(found: Sequence[Occurrence]) -> np.ndarray:
    """All occurrences' vectors: (occurrences, layers+1, hidden)."""
    found = checks.items(found, "found", "Occurrences (occurrences' output)")
    for one in found:
        checks.instance(one, Occurrence, "Each of found", "occurrences")
    return np.stack([o.vectors for o in found]) if found else np.zeros((0, 0, 0), dtype=np.float32)
