"""Built-in example texts, written for this project, with loaders."""
from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

from bertviz_core.corpora.uploads import UploadedCorpus, UploadSummary, upload_rows  # noqa: F401 - re-exported

HERE = Path(__file__).parent
NEWS_TOPICS_CSV = HERE / "news_topics.csv"
CONTEXTS_TXT = HERE / "contexts.txt"
SENTENCE_PAIRS_CSV = HERE / "sentence_pairs.csv"  # sentence1, sentence2, score: gold similarity 0 to 5  # one sentence a line: rivers, money and other senses of "bank"
TUTORIAL = "After stealing money from the bank vault, the bank robber was seen fishing on the Mississippi river bank."


@dataclass(frozen=True)
class WordPreset:
    """Sentences that use ``word`` in several senses; ``senses[i]`` labels the occurrences in ``texts[i]``."""

    word: str
    texts: tuple[str, ...]
    senses: tuple[tuple[str, ...], ...]

    def sense_of(self, text: str, nth: int) -> str | None:
        """The sense label of the nth occurrence in ``text``, when the text is one of this preset's."""
        for known, labels in zip(self.texts, self.senses):
            if known == text and nth < len(labels):
                return labels[nth]
        return None

    def default_senses(self, texts: Sequence[str], sentences: Sequence[int], unknown: str = "?") -> list[str]:
        """A label for each occurrence, given the index of its text: the preset's, else ``unknown``."""
        seen: dict[int, int] = {}
        labels = []
        for sentence in sentences:
            nth = seen.get(sentence, 0)
            seen[sentence] = nth + 1
            labels.append(self.sense_of(texts[sentence], nth) or unknown)
        return labels


@cache
def word_presets() -> dict[str, WordPreset]:
    """Polysemous words ("bank", "bat", ...) with labelled example sentences."""
    raw = json.loads((HERE / "polysemy.json").read_text(encoding="utf-8"))
    return {word: WordPreset(word, tuple(t for t, _ in rows), tuple(tuple(s) for _, s in rows))
            for word, rows in raw.items()}


def preset_of(texts: Sequence[str], word: str) -> str | None:
    """The name of the preset whose word is ``word`` and whose texts are exactly ``texts`` (lines stripped,
    empty ones left out), or None when they are someone's own."""
    texts = tuple(t.strip() for t in texts if t.strip())
    for name, preset in word_presets().items():
        if preset.word.lower() == word.strip().lower() and preset.texts == texts:
            return name
    return None


def known_senses(word: str, texts: Sequence[str], sentences: Sequence[int], unknown: str = "?") -> list[str]:
    """A sense label for each occurrence of ``word``, given the index of its text: the label of any preset
    for that word that holds the text, else ``unknown``. Edited texts keep the labels of the sentences kept."""
    presets = [p for p in word_presets().values() if p.word.lower() == word.strip().lower()]
    if not presets:
        return [unknown] * len(sentences)
    per_preset = [p.default_senses(texts, sentences, unknown) for p in presets]
    return [next((labels[i] for labels in per_preset if labels[i] != unknown), unknown) for i in range(len(sentences))]


MAX_ROWS = 5000  # upload limit, overridable with the BERTVIZ_MAX_ROWS environment setting
LABEL_NAMES = ("label", "labels", "class", "category", "topic")


@cache
def news_topics() -> pd.DataFrame:
    """The built-in labelled corpus: 160 short news-style sentences, 40 each of sports, business,
    science and food, written for this project. Columns: text, label."""
    return pd.read_csv(NEWS_TOPICS_CSV)


@cache
def sentence_pairs() -> pd.DataFrame:
    """The built-in scored pairs: 40 sentence pairs written for this project, each with a gold similarity
    from 0 (unrelated) to 5 (the same meaning), as STS benchmarks score them. Columns: sentence1, sentence2,
    score."""
    return pd.read_csv(SENTENCE_PAIRS_CSV)


def read_pairs(data: bytes) -> pd.DataFrame:
    """An uploaded CSV of scored pairs (UTF-8, any of ``SEPARATORS``) as text columns; the columns are checked
    by ``task_measures.check_pairs``."""
    decoded = _decode(data, "the columns sentence1, sentence2, score")
    frame = _parse_csv(decoded, sniff_separator(decoded), header=0, skip_blank_lines=True)
    names = [str(c).strip().lower() for c in frame.columns]
    # pandas renames a repeated header "a" to "a.1": it is the same name written twice
    bases = [re.sub(r"\.\d+$", "", name) if re.sub(r"\.\d+$", "", name) in names else name for name in names]
    twice = sorted({name for name in bases if bases.count(name) > 1})
    if twice:  # both would be kept under one name, and no column could be picked
        spelled = "; ".join(", ".join(f"“{c}”" for c, base in zip(frame.columns, bases) if base == name)
                            for name in twice)
        raise ValueError(f"The file has more than one column named {', '.join(twice)} (case and spaces aside: "
                         f"{spelled}). Keep one of each, then upload it again.")
    return frame.set_axis(names, axis=1)


def _decode(data: bytes, wanted: str) -> str:
    """A file's bytes (an upload's, or one the precompute command reads) as UTF-8 text; ``ValueError`` for an empty
    file (asking for ``wanted``) or another encoding, in words that fit both."""
    if not data.strip():
        raise ValueError(f"The file is empty: give one with {wanted}.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"The file is not UTF-8 text (byte {err.start} cannot be read). "
                         "Save it as UTF-8 (a spreadsheet's 'CSV UTF-8') and use that file.") from err


def _parse_csv(decoded: str, separator: str, header: int | None, skip_blank_lines: bool = False) -> pd.DataFrame:
    """CSV text as a frame of text cells; ``ValueError`` when it cannot be read."""
    try:
        return pd.read_csv(io.StringIO(decoded), sep=separator, dtype=str, keep_default_na=False,
                           skip_blank_lines=skip_blank_lines, header=header)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise ValueError(f"The file could not be read as CSV: {str(err).splitlines()[0]}") from err


@cache
def reference_corpus() -> tuple[str, ...]:
    """The Similar contexts page's built-in corpus: the news topics, the word-sense presets' sentences and
    contexts.txt, in that order, each sentence once."""
    sentences = [*news_topics()["text"], *(t for preset in word_presets().values() for t in preset.texts),
                 *CONTEXTS_TXT.read_text(encoding="utf-8").splitlines()]
    return tuple(dict.fromkeys(s.strip() for s in sentences if s.strip()))


@dataclass(frozen=True)
class Table:
    """A parsed upload: the frame, the guessed text and label columns (None when unclear), and a ``note``
    saying how the file was read when that was not the obvious way."""

    frame: pd.DataFrame
    text_column: str | None
    label_column: str | None
    note: str | None = None


SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}


def sniff_separator(text: str) -> str:
    """The column separator of a CSV text (one of ``SEPARATORS``), by the standard library's csv.Sniffer on
    its first lines; a comma when it cannot tell."""
    try:
        return csv.Sniffer().sniff(text[:65536], delimiters="".join(SEPARATORS)).delimiter
    except csv.Error:
        return ","


def _looks_like_a_sentence(cell: str) -> bool:
    """A header cell that reads as data: four words or more, or ending like a sentence."""
    return len(cell.split()) >= 4 or cell.rstrip().endswith((".", "!", "?"))


def max_rows() -> int:
    """The row limit for uploads: BERTVIZ_MAX_ROWS, or ``MAX_ROWS``."""
    value = os.environ.get("BERTVIZ_MAX_ROWS", "")
    return int(value) if value.isdigit() and int(value) > 0 else MAX_ROWS


def table_texts(table: Table, text_column: str, label_column: str | None) -> tuple[list[str], list[str] | None, int]:
    """Texts (stripped, rows without one dropped), their labels (None without a label column), and how many
    rows were dropped; ``uploads.upload_rows`` says which kind each dropped row was."""
    found = upload_rows(table.frame, text_column, label_column)
    return found.texts, found.labels, found.summary.left_out


def read_table(data: bytes, limit: int | None = None) -> Table:
    """Parse an uploaded CSV (UTF-8) and guess its text and label columns.

    Raises ValueError with a message a person understands for empty files, other encodings,
    unreadable CSV, no usable text column, and more rows than ``limit`` (default ``max_rows()``).
    """
    limit = limit or max_rows()
    decoded = _decode(data, "a header row and one text per row")
    separator = sniff_separator(decoded)

    def parse(header: int | None) -> pd.DataFrame:
        return _parse_csv(decoded, separator, header)

    frame, notes = parse(0), []
    if separator != ",":
        notes.append(f"Read as {SEPARATORS[separator]}-separated: {frame.shape[1]} column(s).")
    if any(_looks_like_a_sentence(str(c)) for c in frame.columns):  # no header row: its first row is a text
        frame = parse(None)
        frame.columns = [f"column {i + 1}" for i in range(frame.shape[1])]
        notes.append("The first row reads as a text, not as column names, so it is kept as a row and the columns "
                     "are named column 1, column 2, …")
    note = " ".join(notes) or None
    if len(frame) > limit:
        raise ValueError(f"The file has {len(frame):,} rows; the limit is {limit:,}. "
                         "Upload a smaller sample (or raise BERTVIZ_MAX_ROWS on the server).")
    text_column, label_column = guess_columns(frame)
    return Table(frame, text_column, label_column, note)


def guess_columns(frame: pd.DataFrame) -> tuple[str | None, str | None]:
    """The text and label columns of a table of text cells, as an upload's are guessed: the text column is the
    one of sentences with the longest cells (None when a column named text or sentence competes with it); the
    label column is one named like a label, else the only column of 2 to 50 short values (None when unclear).
    ``ValueError`` when no column holds sentences."""
    def sentence_share(column: str) -> float:  # among the non-empty cells, how many hold two words or more
        cells = frame[column][frame[column].str.strip() != ""]
        return float(cells.str.contains(r"\w{2,}\s+\w", regex=True).mean()) if len(cells) else 0.0

    texty = [c for c in frame.columns if sentence_share(c) > 0.5]
    if not texty:
        raise ValueError(f"No column holds sentences (columns: {', '.join(map(str, frame.columns))}). "
                         "Include a column of texts, one per row.")
    text_column = max(texty, key=lambda c: frame[c].str.len().mean())
    named = [c for c in frame.columns if str(c).strip().lower() in ("text", "sentence", "sentences")]
    if named and named[0] != text_column and named[0] in texty:
        text_column = None  # two plausible columns: let the person choose
    others = [c for c in frame.columns if c != text_column]
    named_labels = [c for c in others if str(c).strip().lower() in LABEL_NAMES]
    label_candidates = named_labels or [c for c in others if 2 <= frame[c].nunique() <= 50
                                        and frame[c].str.len().mean() < 40]
    label_column = label_candidates[0] if len(label_candidates) == 1 else None
    return text_column, label_column
