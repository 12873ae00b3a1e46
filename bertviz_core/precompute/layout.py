"""The precomputed store on disk, as its writer fills it shard by shard.

A store is a folder::

    plan.json                 what is being computed (model identity, input digest, strategies, layers, shards)
    rows.parquet              one row per text: text, label, row (its row in the input), tokens, dropped, truncated
    vectors/<column>.npy      float32 (rows, hidden) per (strategy, layer), e.g. mean@6, or pooler
    tokens/<layer>.npy        with token layers: float32 (tokens, hidden), every row's ordinary tokens in row order
    tokens/rows/<shard>.parquet   those tokens' rows: sentence, position, token, word, key, start, end, ...
    shards/<shard>.done       one empty file per finished shard of ``shard_rows`` rows
    manifest.json             written last, atomically, once every shard is done: only then is the store open-able

Every vector file is created at its full size at the start (its disk blocks reserved, so a full disk is said before
any model run) and written with plain file writes, never through a writable memory map (on a full disk that
kills the process instead of raising). A shard's marker is written after its vectors are flushed to disk, so a
stopped run resumes from its finished shards and recomputes the rest.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

FORMAT = "bertviz-store/1"
PLAN, MANIFEST, ROWS = "plan.json", "manifest.json", "rows.parquet"
DTYPE = np.dtype("<f4")

Column = tuple[str, int | None]  # (strategy, layer), layer None for a strategy without layers


def column_name(strategy: str, layer: int | None) -> str:
    """A vector file's name (no suffix): "mean@6", or "pooler" for a strategy without layers."""
    return strategy if layer is None else f"{strategy}@{layer}"


def disk_full(folder: Path, needed: int | None = None) -> ValueError:
    """The one message for a full disk, with what is free there."""
    free = shutil.disk_usage(folder).free
    wanted = f" it needs {needed / 2**20:,.0f} MiB more and" if needed else ""
    return ValueError(f"The disk holding {folder} is full:{wanted} {free / 2**20:,.0f} MiB are free. Free some space "
                      "or choose another --out, then run the same command again: finished shards are kept.")


@contextmanager
def disk_errors(folder: Path) -> Iterator[None]:
    """Turn a full disk (or a quota) met while writing into ``disk_full``'s message."""
    try:
        yield
    except OSError as err:
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            raise disk_full(folder) from err
        raise


def write_atomically(path: Path, content: bytes) -> None:
    """``content`` at ``path``, whole or not at all: written beside it, flushed, then renamed over it."""
    part = path.with_name(path.name + ".part")
    with disk_errors(path.parent), open(part, "wb") as file:
        file.write(content)
        file.flush()
        os.fsync(file.fileno())
    os.replace(part, path)


def write_json(path: Path, value: dict) -> None:
    """``value`` as indented JSON at ``path``, atomically."""
    write_atomically(path, json.dumps(value, indent=2, sort_keys=True).encode("utf-8"))


def read_json(path: Path) -> dict:
    """The JSON object at ``path``; ``ValueError`` when it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"{path} could not be read ({err}); the store is damaged: compute it again.") from err


def check_out(out: Path) -> None:
    """``ValueError`` in one sentence when a store cannot be written at ``out``, said before any work and leaving
    nothing behind: a file there, a folder holding other files and no store, or a place this process cannot write
    (a read-only folder, a path under /proc or /sys), tried by making a folder in the nearest one that exists."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file: choose a new or empty folder as --out.")
    if out.is_dir() and not (out / PLAN).exists() and any(out.iterdir()):
        raise ValueError(f"{out} is a folder that holds other files and no store: choose a new or empty --out.")
    nearest = next(folder for folder in (out, *out.parents) if folder.exists())
    try:
        os.rmdir(tempfile.mkdtemp(dir=nearest))
    except OSError as err:
        raise ValueError(f"The store cannot be written at {out}: making a folder in {nearest} failed ({err.strerror}). "
                         "Choose an --out on a disk this user can write to.") from err


def token_starts(kept: np.ndarray, special_tokens: int) -> np.ndarray:
    """(rows+1,) int64: where each row's ordinary tokens start in a token file, and the total last. ``kept``: the
    tokens each row gives the model (``Lengths.kept``), of which ``special_tokens`` are [CLS], [SEP] and the like."""
    return np.concatenate([[0], np.cumsum(np.asarray(kept, dtype=np.int64) - special_tokens)])


def _allocate(path: Path, shape: tuple[int, int], folder: Path) -> None:
    """An .npy file of ``shape`` float32 zeros, its disk blocks reserved now, so that a full disk is found here."""
    with disk_errors(folder), open(path, "wb") as file:
        np.lib.format.write_array_header_1_0(file, {"descr": DTYPE.str, "fortran_order": False, "shape": shape})
        size = shape[0] * shape[1] * DTYPE.itemsize
        if hasattr(os, "posix_fallocate") and size:
            os.posix_fallocate(file.fileno(), 0, file.tell() + size)
        file.truncate(file.tell() + size)


def _write_rows(path: Path, first: int, block: np.ndarray, folder: Path) -> None:
    """``block`` (n, hidden) over rows [first, first + n) of the .npy file at ``path``, flushed to disk."""
    with disk_errors(folder), open(path, "r+b") as file:
        np.lib.format.read_magic(file)
        np.lib.format.read_array_header_1_0(file)  # reading the header leaves the file at the first row
        file.seek(first * block.shape[1] * DTYPE.itemsize, os.SEEK_CUR)
        file.write(np.ascontiguousarray(block, dtype=DTYPE).tobytes())
        file.flush()
        os.fsync(file.fileno())


class StoreFiles:
    """The files of one store folder: its plan, rows, vector and token files, shards' markers and manifest.
    ``starts`` (rows+1,): where each row's tokens start in the token files (``token_starts``), with token layers."""

    def __init__(self, folder: Path, columns: list[Column], rows: int, hidden: int, shard_rows: int,
                 token_layers: Sequence[int] = (), starts: np.ndarray | None = None) -> None:
        self.folder, self.columns, self.rows, self.hidden, self.shard_rows = folder, columns, rows, hidden, shard_rows
        self.token_layers, self.starts = list(token_layers), starts
        self.vector_dir, self.shard_dir, self.token_dir = folder / "vectors", folder / "shards", folder / "tokens"

    @property
    def shards(self) -> int:
        """How many shards the rows make (the last may be shorter)."""
        return -(-self.rows // self.shard_rows)

    def shard_span(self, shard: int) -> tuple[int, int]:
        """The rows [start, stop) of ``shard``."""
        return shard * self.shard_rows, min((shard + 1) * self.shard_rows, self.rows)

    def shard_length(self, shard: int) -> int:
        """How many rows ``shard`` holds."""
        start, stop = self.shard_span(shard)
        return stop - start

    def vector_path(self, column: Column) -> Path:
        return self.vector_dir / f"{column_name(*column)}.npy"

    def token_path(self, layer: int) -> Path:
        return self.token_dir / f"{layer}.npy"

    def token_rows_path(self, shard: int) -> Path:
        return self.token_dir / "rows" / f"{shard:06d}.parquet"

    def shard_texts(self, shard: int) -> list[str]:
        """The texts of ``shard``, read back from rows.parquet (written in row groups of ``shard_rows``), so that a run
        holds one shard's texts at a time, never the corpus's."""
        import pyarrow.parquet as pq

        start, stop = self.shard_span(shard)
        parquet = pq.ParquetFile(self.folder / ROWS)
        firsts = np.cumsum([0] + [parquet.metadata.row_group(g).num_rows for g in range(parquet.num_row_groups)])
        groups = [g for g in range(parquet.num_row_groups) if firsts[g] < stop and firsts[g + 1] > start]
        texts = parquet.read_row_groups(groups, columns=["text"]).column(0).to_pylist()
        return texts[start - firsts[groups[0]]:stop - firsts[groups[0]]]

    def pending(self) -> list[int]:
        """The shards without a marker, in order: those a run still has to compute."""
        return [s for s in range(self.shards) if not (self.shard_dir / f"{s:06d}.done").exists()]

    def create(self, plan: dict, rows: pd.DataFrame) -> None:
        """Start the store: its vector and token files at full size (disk reserved; ``ValueError`` when they do not
        fit), its rows, then its plan (last, so a folder with a plan has every file a resumed run writes into)."""
        self.vector_dir.mkdir(parents=True, exist_ok=True)
        self.shard_dir.mkdir(exist_ok=True)
        tokens = 0 if self.starts is None else int(self.starts[-1])
        files = [(self.vector_path(column), self.rows) for column in self.columns]
        if self.token_layers:
            (self.token_dir / "rows").mkdir(parents=True, exist_ok=True)
            files += [(self.token_path(layer), tokens) for layer in self.token_layers]
        needed = sum(length for _, length in files) * self.hidden * DTYPE.itemsize
        free = shutil.disk_usage(self.folder).free
        if needed > free:
            raise disk_full(self.folder, needed - free)
        for path, length in files:
            _allocate(path, (length, self.hidden), self.folder)
        with disk_errors(self.folder):
            rows.to_parquet(self.folder / (ROWS + ".part"), index=False, row_group_size=self.shard_rows)
        os.replace(self.folder / (ROWS + ".part"), self.folder / ROWS)
        write_json(self.folder / PLAN, plan)

    def write_shard(self, shard: int, vectors: dict[Column, np.ndarray], tokens: dict[int, list[np.ndarray]],
                    token_rows: pd.DataFrame | None) -> None:
        """Write ``shard``'s vectors ({column: (shard's rows, hidden)}) into every vector file, its token vectors
        ({layer: one (ordinary tokens, hidden) per row}) and ``token_rows`` with token layers, flush them to disk,
        then mark the shard done."""
        start, stop = self.shard_span(shard)
        for column in self.columns:
            if vectors[column].shape != (stop - start, self.hidden):
                raise ValueError(f"Shard {shard} of {column_name(*column)} has shape {vectors[column].shape}; "
                                 f"{(stop - start, self.hidden)} was expected.")
            _write_rows(self.vector_path(column), start, vectors[column], self.folder)
        if self.token_layers:
            expected = int(self.starts[stop] - self.starts[start])
            for layer in self.token_layers:
                block = np.concatenate(tokens[layer]) if tokens[layer] else np.empty((0, self.hidden), DTYPE)
                if block.shape != (expected, self.hidden) or len(token_rows) != expected:
                    raise ValueError(f"Shard {shard} gave {len(block):,} token vectors and {len(token_rows):,} token "
                                     f"rows at layer {layer}; the plan counted {expected:,}: this tokenizer adds "
                                     "special tokens unevenly, so its token vectors cannot be stored.")
                _write_rows(self.token_path(layer), int(self.starts[start]), block, self.folder)
            with disk_errors(self.folder):
                token_rows.to_parquet(self.token_rows_path(shard), index=False)
        with disk_errors(self.folder):
            (self.shard_dir / f"{shard:06d}.done").touch()

    def check_done(self) -> None:
        """``ValueError`` unless every shard is done."""
        left = self.pending()
        if left:
            raise ValueError(f"{len(left)} shard(s) of {self.folder} are not computed yet; run the command again.")

    def finish(self, manifest: dict) -> None:
        """Write the manifest (atomically), once every shard is done: the store is complete from then on."""
        self.check_done()
        write_json(self.folder / MANIFEST, manifest)
