"""Vectors out to the tools people already use: the TensorFlow Embedding Projector's pair of TSV files, and a
Parquet file that Embedding Atlas opens with its 2-D coordinates.

    python -m bertviz_core export tickets-store --column mean@6 --to projector --out tickets-projector
    python -m bertviz_core export tickets-store --column mean@6 --to atlas --out tickets-atlas --map UMAP

The Projector draws at most ~100,000 points (tensorboard#773), so a larger store is exported as a stated, seeded
sample (``--sample``); Atlas reads every row.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.precompute.maps import sample_rows
from bertviz_core.precompute.reader import VectorStore

PROJECTOR_ROWS = 100_000  # the most points the Embedding Projector draws
FORMATS = ("projector", "atlas")


def _cell(value: object) -> str:
    """A metadata cell as the Projector's TSV reader takes it: no tab or line break inside; a missing one empty."""
    return "" if pd.isna(value) else " ".join(str(value).split())


def projector_files(vectors: np.ndarray, metadata: pd.DataFrame) -> tuple[bytes, bytes]:
    """The Embedding Projector's ``vectors.tsv`` (one tab-separated row per vector, no header) and ``metadata.tsv``
    (a header row, then one row per vector; a single column is written without a header, as the Projector
    reads it) for (n, hidden) ``vectors`` and the (n, columns) ``metadata``."""
    vectors = checks.numbers(vectors, "vectors", "(n, hidden)")
    if len(metadata) != len(vectors):
        raise ValueError(f"There are {len(vectors):,} vectors but {len(metadata):,} metadata rows: give one a vector.")
    # 9 significant digits: every float32 reads back as itself
    rows = ["\t".join(f"{value:.9g}" for value in row) for row in np.asarray(vectors, dtype=np.float32)]
    cells = metadata.map(_cell)
    lines = ([] if len(cells.columns) == 1 else ["\t".join(map(_cell, cells.columns))]) + [
        "\t".join(row) for row in cells.itertuples(index=False, name=None)]
    return ("\n".join(rows) + "\n").encode("utf-8"), ("\n".join(lines) + "\n").encode("utf-8")


def atlas_frame(texts: list[str], labels: list[str] | None, coords: np.ndarray | None,
                rows: np.ndarray | None = None) -> pd.DataFrame:
    """What Embedding Atlas opens: row (in the store or upload), text, label (when labelled), and x, y (the 2-D
    map, when given: (n, 2))."""
    frame = pd.DataFrame({"row": np.arange(len(texts)) if rows is None else rows, "text": texts})
    if labels is not None:
        frame["label"] = labels
    if coords is not None:
        coords = checks.numbers(coords, "coords", "(n, 2)", finite=False)  # NaN: a row a sampled map left out
        frame["x"], frame["y"] = coords[:, 0], coords[:, 1]
    return frame


def export_files(vectors: np.ndarray | None, texts: list[str], labels: list[str] | None, coords: np.ndarray | None,
                 to: str, name: str = "export") -> dict[str, bytes]:
    """{file name: its bytes} of an export of ``texts`` (n,) with their ``labels`` (n,) or None, for ``to``:
    "projector", vectors.tsv and metadata.tsv of their (n, hidden) ``vectors`` (every row given: sample a larger
    corpus first, see ``PROJECTOR_ROWS``); "atlas", {name}.parquet (row, text, label, x, y from a map's (n, 2)
    ``coords`` when given; the vectors are not needed)."""
    checks.choice(to, "export format", FORMATS)
    if to == "projector":
        metadata = pd.DataFrame({"text": texts} | ({} if labels is None else {"label": labels}))
        return dict(zip(("vectors.tsv", "metadata.tsv"), projector_files(vectors, metadata)))
    buffer = io.BytesIO()
    atlas_frame(list(texts), labels, coords).to_parquet(buffer, index=False)
    return {f"{name}.parquet": buffer.getvalue()}


def zipped(files: dict[str, bytes]) -> bytes:
    """The ``files`` ({name: bytes}) as one .zip, for a single download."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def store_export(store: VectorStore, column: str, to: str, sample: int | None = None,
                 projection: str = "PCA") -> dict[str, bytes]:
    """The store's ``column`` (e.g. "mean@6") exported for ``to`` ({file name: bytes}): "projector", vectors.tsv and
    metadata.tsv (text, label, row) of at most ``sample`` rows, ``PROJECTOR_ROWS`` by default, seeded; "atlas",
    atlas.parquet of every row with the store's ``projection`` map as x, y when it holds one."""
    checks.choice(to, "export format", FORMATS)
    if column not in store.manifest["columns"]:
        raise ValueError(f"The store holds no {checks.shown(column)} column; it holds "
                         f"{', '.join(store.manifest['columns'])}.")
    strategy, _, layer = column.partition("@")
    vectors = store.vectors(strategy, int(layer) if layer else None)
    rows = store.rows
    if to == "projector":
        chosen = sample_rows(len(vectors), checks.whole_number(sample or PROJECTOR_ROWS, "sample", 1))
        metadata = rows.iloc[chosen][["text"] + (["label"] if store.labels is not None else [])]
        return dict(zip(("vectors.tsv", "metadata.tsv"),
                        projector_files(np.asarray(vectors[chosen]), metadata.assign(row=chosen))))
    coords = None
    if projection in store.manifest.get("maps", {}).get(column, {}):
        placed = store.map(projection, strategy, int(layer) if layer else None)
        coords = np.full((len(rows), 2), np.nan)
        coords[placed["row"].to_numpy()] = placed[["x", "y"]].to_numpy()
    return export_files(None, rows["text"].tolist(), store.labels, coords, "atlas", "atlas")


def export_store(store: VectorStore, column: str, to: str, out: str, sample: int | None = None,
                 projection: str = "PCA") -> list[Path]:
    """``store_export`` written to the folder ``out``: the files written."""
    files = store_export(store, column, to, sample, projection)
    folder = Path(checks.text(out, "The export's folder"))
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name).write_bytes(content)
    return [folder / name for name in files]
