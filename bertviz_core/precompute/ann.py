"""A store's approximate sentence search: a faiss inverted-file index (IVF) of a column's directions, whose
recall@10 against exact search is measured when it is built and said beside every answer.

Below ``EXACT_ROWS`` rows an exact search (a matrix product over the memory-mapped vectors) answers within ~50 ms on
two cores, and no index is built. Above, the rows' unit vectors are clustered into ``lists`` lists (k-means on a
seeded sample); a query probes the ``probes`` lists whose centres lie nearest to its direction and takes their
``CANDIDATES`` nearest rows by cosine. Those rows are then scored exactly, by the page's metric, from the store's
vectors: every score shown is exact, and only which rows are found is approximate. ``probes`` is the fewest that
reach ``TARGET_RECALL`` on ``RECALL_QUERIES`` stored rows used as queries (each one's own row left out), and the
recall of each metric at that setting is kept in the manifest.

The index is written to ``index/<column>.faiss`` and opened memory-mapped (``IO_FLAG_MMAP_IFC``): opening costs
almost no memory, and a query reads only the lists it probes.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from bertviz_core.measures.neighbours import scores_against
from bertviz_core.measures.similarity import METRICS

EXACT_ROWS = 50_000  # rows an exact search answers within ~50 ms on two cores (make bench-store)
CANDIDATES = 200  # rows a query takes from the index before scoring them exactly: k up to 200
RECALL_QUERIES = 300
RECALL_K = 10
TARGET_RECALL = 0.97  # measured on a sample, so aim above the 0.95 the app promises
MIN_PROBES = 8  # queries unlike the stored rows spread their neighbours over more lists than the recall sample
TRAIN_PER_LIST = 40  # k-means sample: faiss warns below 39 points a centre
CHUNK_ROWS = 65536  # rows added to the index, or scored exactly, at a time
SEED = 0


def index_path(folder: Path, name: str) -> Path:
    """Where the index of a stored sentence column (e.g. "mean@6") or token layer ("tokens@6") lies."""
    return folder / "index" / f"{name}.faiss"


def _unit(vectors: np.ndarray) -> np.ndarray:
    """float32 (n, hidden) rows of length 1 (a zero row stays zero): cosine becomes faiss's inner product."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def exact_best(vectors: np.ndarray, queries: np.ndarray, k: int, metric: str,
               leave_out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``queries`` (q, hidden), the ``k`` rows of (rows, hidden) ``vectors`` with the best ``metric``
    score, best first (equal scores in row order), the query's ``leave_out`` row (q,) excluded: rows (q, k) int64
    and their scores (q, k) float32. The vectors are read ``CHUNK_ROWS`` rows at a time, so a memory map is never
    read whole."""
    queries = np.asarray(queries, dtype=np.float32)
    sign = -1.0 if METRICS[metric].similar_high else 1.0
    best_rows = np.empty((len(queries), 0), dtype=np.int64)
    best_signed = np.empty((len(queries), 0), dtype=np.float64)
    for start in range(0, len(vectors), CHUNK_ROWS):
        chunk = np.asarray(vectors[start:start + CHUNK_ROWS], dtype=np.float32)
        signed = sign * METRICS[metric].between(queries, chunk).astype(np.float64)  # (q, chunk)
        rows = np.broadcast_to(np.arange(start, start + len(chunk)), signed.shape)
        if leave_out is not None:
            signed = np.where(rows == np.asarray(leave_out)[:, None], np.inf, signed)
        best_rows, best_signed = np.hstack([best_rows, rows]), np.hstack([best_signed, signed])
        if best_rows.shape[1] > k:
            keep = np.argpartition(best_signed, k - 1, axis=1)[:, :k]
            best_rows = np.take_along_axis(best_rows, keep, 1)
            best_signed = np.take_along_axis(best_signed, keep, 1)
    order = np.lexsort((best_rows, best_signed), axis=1)
    return np.take_along_axis(best_rows, order, 1), (sign * np.take_along_axis(best_signed, order, 1)).astype(
        np.float32)


def top_of(rows: np.ndarray, scores: np.ndarray, k: int, metric: str, leave_out: int = -1) -> np.ndarray:
    """The ``k`` of ``rows`` (n,) with the best ``scores`` (n,) by ``metric``, best first, ties in row order."""
    signed = np.where(rows == leave_out, np.inf, -scores if METRICS[metric].similar_high else scores)
    k = min(k, int(np.isfinite(signed).sum()))
    best = np.argpartition(signed, k - 1)[:k] if k < len(rows) else np.arange(len(rows))
    return rows[best[np.lexsort((rows[best], signed[best]))]][:k]


def approximate_top(index, vectors: np.ndarray, query: np.ndarray, k: int, metric: str, probes: int,
                    leave_out: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """The index's ``CANDIDATES`` rows nearest to ``query``'s direction, scored exactly by ``metric`` from
    ``vectors`` (rows, hidden): the best ``k`` rows (k,) int64, best first, and their scores (k,)."""
    import faiss

    _, found = index.search(_unit(query[None]), max(CANDIDATES, k + 1),
                            params=faiss.SearchParametersIVF(nprobe=int(probes)))
    rows = np.unique(found[0][found[0] >= 0])  # sorted: the memory map is read in order
    scores = scores_against(vectors[rows], query, metric)
    best = top_of(rows, scores, k, metric, leave_out)
    return best, scores[np.searchsorted(rows, best)]


def list_count(rows: int) -> int:
    """Inverted lists for ``rows`` rows: about √rows, a power of two (1,024 for a million)."""
    return int(2 ** round(np.log2(max(np.sqrt(rows), 1))))


def build_index(vectors: np.ndarray, path: Path) -> dict:
    """An IVF index of (rows, hidden) ``vectors`` (a memory map, read a chunk at a time) written to ``path``
    atomically, and its facts for the manifest: lists, probes, candidates, and per metric the recall@10 against
    exact search on ``RECALL_QUERIES`` stored rows (their own row left out)."""
    import faiss

    rows, hidden = vectors.shape
    lists = list_count(rows)
    generator = np.random.default_rng(SEED)
    train = np.sort(generator.choice(rows, size=min(rows, lists * TRAIN_PER_LIST), replace=False))
    index = faiss.IndexIVFFlat(faiss.IndexFlatIP(hidden), hidden, lists, faiss.METRIC_INNER_PRODUCT)
    index.cp.seed = SEED
    index.train(_unit(vectors[train]))
    for start in range(0, rows, CHUNK_ROWS):
        index.add(_unit(vectors[start:start + CHUNK_ROWS]))
    queries = np.sort(generator.choice(rows, size=min(rows, RECALL_QUERIES), replace=False))
    probes, recall = _tune(index, vectors, queries, lists)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    faiss.write_index(index, str(part))
    part.replace(path)
    return {"kind": "faiss IVF", "lists": lists, "probes": probes, "candidates": CANDIDATES, "recall_k": RECALL_K,
            "recall_queries": len(queries), "recall": recall, "seed": SEED}


def _tune(index, vectors: np.ndarray, queries: np.ndarray, lists: int) -> tuple[int, dict[str, float]]:
    """The fewest probes (from ``MIN_PROBES`` or 1/64 of the lists, doubling) whose cosine recall@10 on ``queries``
    reaches ``TARGET_RECALL``, and every metric's recall there: (probes, {metric: recall})."""
    asked = np.asarray(vectors[queries], dtype=np.float32)
    exact = {metric: [set(rows.tolist()) for rows in exact_best(vectors, asked, RECALL_K, metric, queries)[0]]
             for metric in METRICS}

    def recall(metric: str, probes: int) -> float:
        hits = sum(len(truth & set(approximate_top(index, vectors, np.asarray(vectors[row], np.float32), RECALL_K,
                                                   metric, probes, row)[0].tolist()))
                   for row, truth in zip(queries, exact[metric]))
        return round(hits / max(sum(map(len, exact[metric])), 1), 4)

    probes = min(max(MIN_PROBES, lists // 64), lists)
    while probes < lists and recall("cosine", probes) < TARGET_RECALL:
        probes *= 2
    probes = min(probes, lists)
    return probes, {metric: recall(metric, probes) for metric in METRICS}


def open_index(path: Path):
    """The index at ``path``, memory-mapped read-only; ``ValueError`` when the file is not a readable index."""
    import faiss

    try:
        return faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC | faiss.IO_FLAG_READ_ONLY)
    except RuntimeError as err:
        raise ValueError(f"{path} could not be read as a search index ({str(err).splitlines()[0][:200]}); the store "
                         "is damaged: compute it again.") from err


INDEX_CHOICES = ("auto", "always", "never")  # auto: only above EXACT_ROWS rows


def write_indexes(folder: Path, vectors_of: dict[str, np.ndarray], when: str = "auto",
                  progress: Callable[[int, int], None] | None = None) -> dict:
    """An index (``build_index``) of each of ``vectors_of`` ({name: (rows, hidden) memory map}, a sentence column
    like "mean@6" or a token layer like "tokens@6") that ``when`` asks for ("auto": those over ``EXACT_ROWS`` rows):
    {name: its facts} for the manifest. ``progress(indexes built, indexes)``."""
    wanted = {name: vectors for name, vectors in vectors_of.items()
              if when == "always" or (when == "auto" and len(vectors) > EXACT_ROWS)}
    said = {}
    for done, (name, vectors) in enumerate(wanted.items()):
        if progress is not None:
            progress(done, len(wanted))
        said[name] = build_index(vectors, index_path(folder, name))
    if progress is not None and wanted:
        progress(len(wanted), len(wanted))
    return said
