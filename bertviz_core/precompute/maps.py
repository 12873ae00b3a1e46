"""A store's 2-D maps: PCA of every row, read from the memory-mapped vectors a chunk at a time, and any other
projection of ``projection.PROJECTIONS`` (UMAP, t-SNE) of every row or of a stated random sample.

PCA is scikit-learn's "covariance_eigh" solver (what ``PCA(n_components=2)`` runs on tall data) done in chunks:
the mean and the Gram matrix Xᵀ X are summed in float64 over ``CHUNK_ROWS`` rows at a time, so a million rows
never sit in memory; the components get scikit-learn's signs (each component's largest entry positive). The other
projections need every point at once, so they map ``sample`` rows at most, chosen with a fixed seed.

Each map is ``maps/<column>/<projection>.parquet``: row (index into the store's rows), x, y, written atomically.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

import bertviz_core.checks as checks
from bertviz_core.precompute.layout import Column, column_name, disk_errors
from bertviz_core.measures.projection import PROJECTIONS, identical

CHUNK_ROWS = 8192  # float64 rows summed at a time: 24 MiB at hidden 768
MAP_SAMPLE = 10_000  # rows a non-linear map places at most, by default: UMAP of 10,000 rows takes ~20 s on 2 cores
SEED = 0


def check_maps(names: list[str] | None) -> list[str]:
    """Projection names as ``PROJECTIONS`` spells them (any case), repeats dropped; [] for None."""
    spelled = {name.lower(): name for name in PROJECTIONS}
    found = []
    for name in checks.items(names or [], "maps", "projection names"):
        key = checks.text(name, "A map's name").lower()
        if key not in spelled:
            raise ValueError(f"There is no map called {name!r}: choose from {', '.join(PROJECTIONS)}.")
        found.append(spelled[key])
    return list(dict.fromkeys(found))


def streaming_pca(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's exact ``PCA(n_components=2, svd_solver="covariance_eigh").fit_transform`` (which "auto" runs
    on rows >= 10 × hidden, and "full" equals) of (rows, hidden) ``vectors``, a memory map read ``CHUNK_ROWS`` rows
    at a time: float64 (rows, 2) coordinates and each axis's explained variance ratio (2,); zeros when every row
    is the same."""
    rows, hidden = vectors.shape
    spans = [(start, min(start + CHUNK_ROWS, rows)) for start in range(0, rows, CHUNK_ROWS)]
    total, gram = np.zeros(hidden), np.zeros((hidden, hidden))
    for start, stop in spans:
        chunk = np.asarray(vectors[start:stop], dtype=np.float64)
        total += chunk.sum(axis=0)
        gram += chunk.T @ chunk
    mean = total / rows
    covariance = (gram - rows * np.outer(mean, mean)) / max(rows - 1, 1)
    values, vectors_of = np.linalg.eigh(covariance)
    values, components = np.clip(values[::-1], 0.0, None), vectors_of[:, ::-1][:, :2].T  # (2, hidden)
    if values.sum() == 0.0 or rows < 2:
        return np.zeros((rows, 2)), np.zeros(2)
    biggest = np.argmax(np.abs(components), axis=1)
    components *= np.sign(components[np.arange(2), biggest])[:, None]  # scikit-learn's svd_flip on Vt
    coords = np.concatenate([(np.asarray(vectors[start:stop], dtype=np.float64) - mean) @ components.T
                             for start, stop in spans])
    return coords, values[:2] / values.sum()


def sample_rows(rows: int, sample: int) -> np.ndarray:
    """(n,) sorted row indices: every row when there are at most ``sample``, else ``sample`` of them at random
    (seed ``SEED``)."""
    if rows <= sample:
        return np.arange(rows)
    return np.sort(np.random.default_rng(SEED).choice(rows, size=sample, replace=False))


def coordinates(name: str, chosen: np.ndarray) -> np.ndarray:
    """``name``'s (rows, 2) map of the (rows, hidden) ``chosen`` rows (all at the same point when they are)."""
    if len(chosen) < PROJECTIONS[name].min_rows:
        raise ValueError(f"{name} needs at least {PROJECTIONS[name].min_rows} rows to draw a map; the store has "
                         f"{len(chosen)}. Leave it out of --maps.")
    return np.zeros((len(chosen), 2)) if identical(chosen) else PROJECTIONS[name].fn(chosen)


def framed(rows: np.ndarray, coords: np.ndarray) -> pd.DataFrame:
    """A map's file: (row, x, y) of (n,) ``rows`` and their (n, 2) ``coords``."""
    return pd.DataFrame({"row": rows.astype(np.int64), "x": coords[:, 0].astype(np.float32),
                         "y": coords[:, 1].astype(np.float32)})


def sampled_facts(rows: int, total: int) -> dict:
    """What the manifest says of a map of ``rows`` of ``total`` rows drawn by ``sample_rows``."""
    return {"rows": rows, "sampled": rows < total, "seed": SEED}


def one_map(name: str, vectors: np.ndarray, sample: int) -> tuple[pd.DataFrame, dict]:
    """``name``'s map of (rows, hidden) ``vectors``: a frame (row, x, y) and what the manifest says of it."""
    if name == "PCA":
        coords, ratio = streaming_pca(vectors)
        return framed(np.arange(len(vectors)), coords), {"rows": len(vectors), "sampled": False,
                                                          "explained_variance_ratio": ratio.round(6).tolist()}
    rows = sample_rows(len(vectors), sample)
    return (framed(rows, coordinates(name, np.asarray(vectors[rows], dtype=np.float64))),
            sampled_facts(len(rows), len(vectors)))


def map_path(folder: Path, column: Column, name: str) -> Path:
    return folder / "maps" / column_name(*column) / f"{name}.parquet"


MapJob = tuple[Column, str]  # (column, projection name)
Drawn = Iterator[tuple[MapJob, pd.DataFrame, dict]]  # each job's ``one_map``, in the order they finish


def map_processes(jobs: int, rows: int, names: list[str]) -> int:
    """How many processes the local engine draws ``jobs`` maps of ``rows`` rows in: one per core (at most one per
    map), or 1 when every map is a PCA of fewer than ``CHUNK_ROWS`` rows (milliseconds each, less than a worker
    process takes to start)."""
    if jobs <= 1 or (set(names) <= {"PCA"} and rows < CHUNK_ROWS):
        return 1
    return min(jobs, os.cpu_count() or 1)


def _drawn(job: MapJob, vectors: np.ndarray, sample: int) -> tuple[MapJob, pd.DataFrame, dict]:
    # One thread, here as in a worker process (which gets one per core): a UMAP's layout on two BLAS threads
    # differs from its layout on one (measured), and the maps must not depend on where they were drawn.
    with threadpool_limits(1):
        return (job, *one_map(job[1], vectors, sample))


def local_maps(jobs: list[MapJob], vectors_of: dict[Column, np.ndarray], sample: int, processes: int) -> Drawn:
    """``one_map`` of each job, in this process (``processes`` 1) or in that many worker processes (each reads the
    memory-mapped columns, not a copy of them, and runs one thread: the numbers are the same)."""
    if processes <= 1:
        return (_drawn(job, vectors_of[job[0]], sample) for job in jobs)
    return Parallel(n_jobs=processes, return_as="generator_unordered")(
        delayed(_drawn)(job, vectors_of[job[0]], sample) for job in jobs)


def write_maps(folder: Path, columns: list[Column], names: list[str], sample: int,
               vectors_of: dict[Column, np.ndarray], progress: Callable[[int, int], None] | None = None,
               drawer: Callable[[list[MapJob]], Drawn] | None = None) -> dict:
    """Every map of ``names`` for every column, into ``map_path``s, each whole or not at all (a run stopped here
    draws them again: they are the same, seeded): {column name: {projection: its facts}} for the manifest, in the
    columns' and names' order. ``vectors_of``: the columns' (rows, hidden) memory maps; ``drawer(jobs)`` draws the
    maps (default: ``local_maps`` on ``map_processes`` processes); ``progress(maps drawn, maps)`` first and after
    each."""
    jobs = [(column, name) for column in columns for name in names]
    if drawer is None:
        rows = len(next(iter(vectors_of.values()))) if vectors_of else 0
        processes = map_processes(len(jobs), rows, names)
        drawer = partial(local_maps, vectors_of=vectors_of, sample=sample, processes=processes)
    facts_of: dict[MapJob, dict] = {}
    if progress is not None and jobs:
        progress(0, len(jobs))
    for job, frame, facts in drawer(jobs):
        path = map_path(folder, *job)
        path.parent.mkdir(parents=True, exist_ok=True)
        with disk_errors(folder):
            frame.to_parquet(path.with_name(path.name + ".part"), index=False)
        os.replace(path.with_name(path.name + ".part"), path)
        facts_of[job] = facts
        if progress is not None:
            progress(len(facts_of), len(jobs))
    said: dict = {}
    for column, name in jobs:
        said.setdefault(column_name(*column), {})[name] = facts_of[(column, name)]
    return said
