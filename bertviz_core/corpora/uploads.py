"""Which rows of an uploaded table become the corpus, and an account of every row that did not (or came twice)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class UploadSummary:
    """How an upload's rows were used. ``rows`` = ``used`` + ``blank_lines`` + ``empty_texts`` + ``label_only``.

    rows: data rows read (a header row not counted; blank lines counted).
    used: rows whose text became part of the corpus, duplicates included.
    per_label: (label, rows used) for each label, most rows first, ties by label; None without a label column.
        An empty label cell is kept as the label "" (its own class).
    blank_lines: rows with every cell empty (blank lines, or separators only): left out.
    empty_texts: rows with an empty text but something in another cell (not the label column): left out.
    label_only: rows with a label but no text (only when a label column is used): left out.
    duplicates: used rows whose text (stripped) repeats an earlier used row's: kept, so that text counts twice
        or more.
    """

    rows: int
    used: int
    per_label: tuple[tuple[str, int], ...] | None
    blank_lines: int
    empty_texts: int
    label_only: int
    duplicates: int

    @property
    def left_out(self) -> int:
        """Rows not used: blank lines, empty texts and label-only rows."""
        return self.blank_lines + self.empty_texts + self.label_only


@dataclass(frozen=True)
class UploadedCorpus:
    """The texts of an upload (stripped, in file order), their labels (None without a label column), how its
    rows were used, and ``rows``: each text's row in the file (0 = the first data row), so a stored vector can
    be traced back to its line."""

    texts: list[str]
    labels: list[str] | None
    summary: UploadSummary
    rows: list[int]


def upload_rows(frame: pd.DataFrame, text_column: str, label_column: str | None) -> UploadedCorpus:
    """The rows of ``frame`` (text cells, as ``read_table`` reads them) that hold a text in ``text_column``,
    with their labels from ``label_column`` (None: no labels), and an ``UploadSummary`` of every row."""
    if text_column not in frame.columns:
        raise ValueError(f"The file has no column {text_column!r}; its columns are "
                         f"{', '.join(map(str, frame.columns))}.")
    if label_column is not None and label_column not in frame.columns:
        raise ValueError(f"The file has no column {label_column!r}; its columns are "
                         f"{', '.join(map(str, frame.columns))}.")
    cells = frame.astype(str).apply(lambda column: column.str.strip())
    texts = cells[text_column]
    has_text = texts != ""
    blank = (cells == "").all(axis=1)
    label_only = (~has_text & ~blank & (cells[label_column] != "") if label_column is not None
                  else pd.Series(False, index=frame.index))
    used_texts = list(texts[has_text])
    labels = list(cells.loc[has_text, label_column]) if label_column is not None else None
    per_label = (tuple(sorted(Counter(labels).items(), key=lambda item: (-item[1], item[0])))
                 if labels is not None else None)
    summary = UploadSummary(
        rows=len(frame), used=len(used_texts), per_label=per_label, blank_lines=int(blank.sum()),
        empty_texts=int((~has_text & ~blank & ~label_only).sum()), label_only=int(label_only.sum()),
        duplicates=len(used_texts) - len(set(used_texts)))
    return UploadedCorpus(used_texts, labels, summary, [int(i) for i in has_text.to_numpy().nonzero()[0]])
