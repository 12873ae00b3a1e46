"""A corpus read from a file on disk, for a precompute: CSV/TSV, Parquet, JSON Lines, plain text one per line, or
a Hugging Face ``datasets`` dataset saved to disk. The rows kept, and the account of those left out, follow the
upload rules (``corpora.read_table``'s sniffing and column guess, ``uploads.upload_rows``' cleaning); only the
row limit of uploads does not apply, since a precompute runs outside the web server.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from bertviz_core.corpora import _decode, guess_columns, read_table
from bertviz_core.corpora.uploads import UploadedCorpus, upload_rows

FORMATS = {".csv": "CSV", ".tsv": "CSV", ".parquet": "Parquet", ".jsonl": "JSON Lines", ".ndjson": "JSON Lines",
           ".txt": "plain text"}
TEXT_ONLY = "text"  # the one column of a plain-text file


@dataclass(frozen=True)
class CorpusFile:
    """A file's corpus (``corpus.texts``, ``.labels``, ``.rows``, ``.summary``), the columns used (``label_column``
    None without labels), the format it was read as, and a ``note`` on how it was read (or None)."""

    corpus: UploadedCorpus
    text_column: str
    label_column: str | None
    format: str
    note: str | None


def _format_of(path: Path) -> str:
    if path.is_dir():
        return "datasets"
    found = FORMATS.get(path.suffix.lower())
    if found is None:
        raise ValueError(f"{path.name} is not a format the precompute reads: name it .csv or .tsv (CSV, separator "
                         "sniffed), .parquet, .jsonl (JSON Lines), or .txt (one text per line), or give the folder of "
                         "a Hugging Face dataset saved with save_to_disk.")
    return found


def _as_text_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """Every cell as text, as a CSV upload's cells are read: a missing value is an empty cell, not "nan"."""
    return frame.astype(object).where(frame.notna(), "").astype(str).set_axis([str(c) for c in frame.columns], axis=1)


def _read_frame(path: Path, kind: str) -> tuple[pd.DataFrame, str | None, str | None, str | None]:
    """The file's cells as text, and the guessed text and label columns, with a note (CSV only)."""
    if kind == "CSV":
        table = read_table(path.read_bytes(), limit=sys.maxsize)  # no row limit outside the server
        return table.frame, table.text_column, table.label_column, table.note
    if kind == "plain text":
        lines = _decode(path.read_bytes(), "one text per line").splitlines()
        return pd.DataFrame({TEXT_ONLY: lines}), TEXT_ONLY, None, None
    try:
        if kind == "Parquet":
            frame = pd.read_parquet(path)
        elif kind == "JSON Lines":
            frame = pd.read_json(path, lines=True, dtype=False)
        else:
            frame = _dataset_frame(path)
    except (ValueError, OSError) as err:  # pyarrow's and pandas' reading errors derive from these
        raise ValueError(f"{path.name} could not be read as {kind}: {str(err).splitlines()[0] if str(err) else err!r}"
                         ) from err
    if frame.empty:
        raise ValueError(f"{path.name} holds no rows: give a file with one text per row.")
    frame = _as_text_cells(frame)
    return (frame, *guess_columns(frame), None)


def _dataset_frame(path: Path) -> pd.DataFrame:
    try:
        import datasets
    except ImportError:
        raise ValueError(f"{path} is a folder: reading a Hugging Face dataset saved to disk needs the optional "
                         "package 'datasets' (pip install datasets), which is not installed. Or export it to "
                         "Parquet or JSON Lines first.") from None
    return datasets.load_from_disk(str(path)).to_pandas()


def read_corpus_file(location: str, text_column: str | None = None, label_column: str | None = None) -> CorpusFile:
    """The corpus in the file (or dataset folder) at ``location``: texts from ``text_column`` (guessed as for an
    upload when None), labels from ``label_column`` (guessed when None; none when no column looks like labels).
    ``ValueError`` naming the file for a missing, empty, undecodable or unreadable file, an unknown format, a
    missing column, a text column that cannot be guessed, or no text at all."""
    path = Path(str(location))
    if not path.exists():
        raise ValueError(f"There is no file or folder at {location}.")
    kind = _format_of(path)
    if path.is_file() and path.stat().st_size == 0:
        raise ValueError(f"{path.name} is empty (0 bytes): give a file with one text per row.")
    frame, guessed_text, guessed_label, note = _read_frame(path, kind)
    text_column = text_column or guessed_text
    if text_column is None:
        raise ValueError(f"Which column of {path.name} holds the texts is unclear (columns: "
                         f"{', '.join(map(str, frame.columns))}): name it with --text-column.")
    label_column = label_column or (guessed_label if guessed_label != text_column else None)
    corpus = upload_rows(frame, text_column, label_column)
    if not corpus.texts:
        raise ValueError(f"{path.name} has no text in its column {text_column!r}: every row is empty.")
    return CorpusFile(corpus, text_column, label_column, kind, note)
