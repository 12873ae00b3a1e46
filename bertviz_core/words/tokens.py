"""Token tables for reading: whole words beside their pieces, [UNK] sources, and text highlighting.

Everything that shows user text as HTML goes through ``html.escape``: user text is always shown
literally, never rendered.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.model.encoding import ModelInput

_PALETTE = ("#dbeafe", "#fde68a", "#bbf7d0", "#fbcfe8", "#e9d5ff", "#fed7aa")


def token_frame(item: ModelInput, pad_to: int | None = None, pad_token: str | None = None,
                pad_id: int | None = None) -> pd.DataFrame:
    """``Encoder.tokenize``'s frame of one tokenized text (see there), with [PAD] rows (``pad_token``, ``pad_id``,
    attention_mask 0) up to ``pad_to`` tokens when it is given (checked by the caller against the text's length
    and the model's); ``attrs["dropped"]`` is what truncation cut."""
    n = len(item.ids)
    frame = pd.DataFrame({
        "position": range(n),
        "token": item.tokens,
        "id": item.ids,
        "segment": item.segments,
        "sequence": pd.Series(item.sequences, dtype=object),
        "attention_mask": 1,
        "word_index": pd.Series(item.word_ids, dtype=object),
        "start": pd.Series([None if s else o[0] for o, s in zip(item.offsets, item.special)], dtype=object),
        "end": pd.Series([None if s else o[1] for o, s in zip(item.offsets, item.special)], dtype=object),
    })
    if pad_to is not None and pad_to > n:
        pad = pd.DataFrame({
            "position": range(n, pad_to),
            "token": pad_token,
            "id": pad_id,
            "segment": 0,
            "sequence": pd.Series([None] * (pad_to - n), dtype=object),
            "attention_mask": 0,
            **{column: pd.Series([None] * (pad_to - n), dtype=object) for column in ("word_index", "start", "end")},
        })
        frame = pd.concat([frame, pad], ignore_index=True)
    frame.attrs["dropped"] = item.dropped
    return frame


def pair_layout(item: ModelInput) -> str:
    """How the model's tokenizer lays out a pair, e.g. "[CLS] A [SEP] B [SEP]" or RoBERTa's "<s> A </s> </s> B
    </s>", from ``item``, the pair ("A", "B") as ``Encoder.inputs`` tokenizes it: each text's pieces shown as
    its letter once, the special tokens as they are."""
    shown: list[str] = []
    for token, sequence in zip(item.tokens, item.sequences):
        name = token if sequence is None else "AB"[sequence]
        if sequence is None or not shown or shown[-1] != name:
            shown.append(name)
    return " ".join(shown)


def _check(tokens: pd.DataFrame, text: str, text_pair: str | None = None) -> None:
    """``ValueError`` unless ``tokens`` is ``Encoder.tokenize``'s frame and the texts are strings."""
    checks.frame(tokens, "tokens (Encoder.tokenize's frame)",
                 ("position", "token", "id", "sequence", "attention_mask", "word_index", "start", "end"))
    checks.text(text)
    if text_pair is not None:
        checks.text(text_pair, "The second text")


@dataclass(frozen=True)
class Scheme:
    """How a tokenizer cuts words into pieces, in words for the page: ``name`` ("WordPiece"), ``marking`` (a
    sentence on how its strings mark pieces), ``continuation`` (the label of a piece that continues a word) and
    ``pieces`` (the name of their count)."""

    name: str
    marking: str
    continuation: str
    pieces: str = "Continuation pieces"


def token_scheme(tokenizer: Any) -> Scheme:
    """The ``Scheme`` of a fast tokenizer, read from its tokenizers pipeline: WordPiece (BERT: "##" before every
    piece after a word's first), byte-level BPE (RoBERTa, ModernBERT: "Ġ", a space, before a word's first piece)
    or SentencePiece (XLM-R, ALBERT, DeBERTa-v3: "▁" before a word's first piece)."""
    backend = tokenizer.backend_tokenizer
    model, pre = type(backend.model).__name__, repr(backend.pre_tokenizer)
    if model == "WordPiece":
        return Scheme("WordPiece", "pieces after a word's first start with ##.", "## continuation", "## pieces")
    kind = "SentencePiece" if "Metaspace" in pre else "byte-level BPE" if "ByteLevel" in pre else model
    start = {"SentencePiece": "▁ (the space before the word)", "byte-level BPE": "Ġ (the space before the word)"}
    marking = (f"a piece that starts a word after a space begins with {start[kind]}; the pieces after it have no mark."
               if kind in start else "the table's piece column says which pieces continue a word.")
    return Scheme(f"{kind} ({model.lower()})" if kind == "SentencePiece" else kind, marking, "continuation")


def _continues(frame: pd.DataFrame) -> pd.Series:
    """Whether each token continues the word of the token before it (same word index)."""
    return frame["word_index"].notna() & frame["word_index"].eq(frame["word_index"].shift())


def _source(row: pd.Series, texts: tuple[str, str | None]) -> str:
    """The text a token's offsets point into: its ``sequence``, the first text or the pair's second."""
    return texts[1] if row["sequence"] == 1 and texts[1] is not None else texts[0]


def annotate_tokens(tokens: pd.DataFrame, text: str, text_pair: str | None = None,
                    continuation: str = "## continuation") -> pd.DataFrame:
    """Add ``piece`` ("word start", ``continuation`` (see ``Scheme``) for a piece after a word's first, "special",
    "padding") and ``word``.

    ``word`` is the source text of the whole word a token belongs to (all its pieces), so
    "embeddings" shows beside each of em / ##bed / ##ding / ##s.
    """
    _check(tokens, text, text_pair)
    texts = (text, text_pair)
    frame = tokens.copy()
    spans: dict[int, tuple[int, int]] = {}
    for _, row in frame.dropna(subset=["word_index"]).iterrows():
        lo, hi = spans.get(row["word_index"], (row["start"], row["end"]))
        spans[row["word_index"]] = (min(lo, row["start"]), max(hi, row["end"]))

    continues = _continues(frame)

    def piece(row: pd.Series) -> str:
        if row["attention_mask"] == 0:
            return "padding"
        if row["word_index"] is None:
            return "special"
        return continuation if continues[row.name] else "word start"

    def word(row: pd.Series) -> str:
        if row["word_index"] is None:
            return ""
        lo, hi = spans[row["word_index"]]
        return _source(row, texts)[lo:hi]

    frame["piece"] = frame.apply(piece, axis=1)
    frame["word"] = frame.apply(word, axis=1)
    return frame


def unknown_characters(tokens: pd.DataFrame, unk_token: str, text: str, text_pair: str | None = None) -> list[str]:
    """The source text behind every ``unk_token`` row, in order."""
    _check(tokens, text, text_pair)
    rows = tokens[tokens["token"] == unk_token]
    return [_source(row, (text, text_pair))[row["start"]:row["end"]] for _, row in rows.iterrows()]


def highlight_html(tokens: pd.DataFrame, text: str, unk_token: str = "[UNK]", sequence: int = 0) -> str:
    """``text`` (the first text, or with ``sequence=1`` a pair's second) with each token's span shaded: a colour
    per word, a bar before each piece that continues a word.

    Characters no token covers (spaces, stripped control characters) are kept as they are.
    Returns escaped HTML that is safe to render.
    """
    _check(tokens, text)
    continues = _continues(tokens)
    rows = tokens[(tokens["sequence"] == sequence) & tokens["start"].notna()]
    out, cursor = [], 0
    for _, row in rows.iterrows():
        start, end = int(row["start"]), int(row["end"])
        if start < cursor:  # overlapping offsets: a byte-level piece inside a character; show it once
            continue
        out.append(html.escape(text[cursor:start]))
        colour = "#fca5a5" if row["token"] == unk_token else _PALETTE[int(row["word_index"]) % len(_PALETTE)]
        edge = "border-left:2px solid #475569;" if continues[row.name] else ""
        title = html.escape(f"{row['token']}  id {row['id']}  position {row['position']}", quote=True)
        out.append(
            f'<span title="{title}" style="background:{colour};{edge}padding:1px 1px;border-radius:3px">'
            f"{html.escape(text[start:end])}</span>"
        )
        cursor = end
    out.append(html.escape(text[cursor:]))
    return '<div style="line-height:2.1;font-size:1.05rem;white-space:pre-wrap">' + "".join(out) + "</div>"
