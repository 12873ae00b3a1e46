"""A finished precomputed store, opened from a notebook: ``open_store(path)``.

Opening reads the manifest and the rows' metadata only; vectors are memory-mapped read-only when asked for, so a
store of a million rows costs almost no memory until its vectors are read. A folder without its manifest (a
precompute still running, or stopped before its end) is never opened.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.measures.neighbours import check_k
from bertviz_core.measures.pooling import POOLINGS, vectors_at
from bertviz_core.precompute.ann import approximate_top, exact_best, index_path, open_index
from bertviz_core.precompute.layout import FORMAT, MANIFEST, PLAN, ROWS, column_name, read_json
from bertviz_core.measures.similarity import METRICS

SERVED_RECALL = 0.95  # an index answers cosine only when its measured recall@10 reaches this; else exact search
# The index finds rows by direction, and only cosine ranks by direction alone. Through it, euclidean distance found
# 78 % of an unseen sentence's true 10 nearest at 20,000 rows, 87 % at 1,000,000 (whatever the probes), though
# stored rows as queries found 99.7 %; dot product 37 %. Every other metric is searched exactly.
INDEXED_METRICS = ("cosine",)
T = TypeVar("T")


def identity_mismatch(store: str, stored: str, encoder: Any) -> ValueError:
    """Why a store is refused for ``encoder``: both identities, named."""
    return ValueError(f"The store {store} was computed with the model of identity {stored}, but this Encoder "
                      f"({encoder.info.name}) has identity {encoder.info.identity}: its vectors would not be "
                      "comparable. Load the store's model, or compute the store again with this one.")


def _damaged(path: Path, why: str) -> ValueError:
    return ValueError(f"{path} {why}; the store is damaged: compute it again.")


def _read(path: Path, read: Callable[[Path], T]) -> T:
    """``read(path)`` of one of the store's files; ``ValueError`` saying the store is damaged when it cannot be
    read (cut short, overwritten: pyarrow's and numpy's reading errors derive from OSError or ValueError)."""
    try:
        return read(path)
    except (OSError, ValueError, EOFError) as err:
        raise _damaged(path, f"could not be read ({str(err).splitlines()[0] if str(err) else repr(err)})") from err


def _mapped(path: Path, expected: tuple[int, int]) -> np.ndarray:
    """The float32 array of shape ``expected`` in the .npy file at ``path``, memory-mapped read-only; ``ValueError``
    saying the store is damaged when the file is cut short or holds another shape."""
    array = _read(path, lambda found: np.load(found, mmap_mode="r"))
    if array.shape != expected or array.dtype != np.float32:
        raise _damaged(path, f"holds {array.dtype} {array.shape} where the manifest promises float32 {expected}")
    return array


class VectorStore:
    """A precomputed store: ``.manifest`` (dict), ``.rows`` (text, label, row, tokens, dropped, truncated),
    ``.texts``, ``.labels``, ``.vectors(strategy, layer)`` (memory-mapped), ``.search(query, k, strategy, layer)``;
    with token layers, ``.token_vectors(layer)`` (memory-mapped) and ``.token_rows``; with maps, ``.map(projection,
    strategy, layer)``."""

    def __init__(self, folder: Path, manifest: dict, encoder: Any = None) -> None:
        self.folder, self.manifest, self._encoder = folder, manifest, encoder

    @cached_property
    def rows(self) -> pd.DataFrame:
        """One row per text (rows, 6): text, label (None without labels), row (its row in the input file, 0 = the
        first data row), tokens (as the model read it), dropped (tokens cut), truncated."""
        import pyarrow.parquet as pq

        from bertviz_core.runtime.store import release_free_memory

        # one chunk per column: taking rows out of a file's several row groups costs ~30 ms at a million rows
        import pyarrow as pa

        rows = _read(self.folder / ROWS, lambda path: pq.read_table(path).combine_chunks().to_pandas())
        pa.default_memory_pool().release_unused()  # the table's chunks, copied into one, are freed: give them back
        release_free_memory()
        return rows

    @property
    def texts(self) -> list[str]:
        """The stored texts, in the order of the vectors' rows."""
        return self.rows["text"].tolist()

    @property
    def labels(self) -> list[str] | None:
        """The texts' labels, or None when the input had no label column."""
        return None if self.manifest["input"]["label_column"] is None else self.rows["label"].tolist()

    def vectors(self, strategy: str, layer: int | None = None) -> np.ndarray:
        """float32 (rows, hidden), memory-mapped read-only: the ``strategy`` vectors at ``layer`` (the last layer
        when None; ignored by a strategy without layers). ``ValueError`` naming what the store holds otherwise, or
        saying the file is damaged (cut short, or of another shape than the manifest's)."""
        return _mapped(self.folder / "vectors" / f"{self.column(strategy, layer)}.npy",
                       (self.manifest["rows"], self.manifest["hidden"]))

    def column(self, strategy: str, layer: int | None) -> str:
        """The stored column of ``strategy`` at ``layer`` (the last when None), e.g. "mean@6"; ``ValueError`` naming
        the stored ones when it is not there."""
        strategy = checks.choice(strategy, "pooling strategy", POOLINGS)
        if POOLINGS[strategy].per_layer and layer is None:
            layer = self.manifest["model"]["num_layers"]
        name = column_name(strategy, POOLINGS[strategy].layer_of(layer) if layer is not None else None)
        if name not in self.manifest["columns"]:
            raise ValueError(f"The store holds no {name} vectors; it holds {', '.join(self.manifest['columns'])}. "
                             "Precompute with that strategy and layer (--strategies, --layers).")
        return name

    def token_vectors(self, layer: int) -> np.ndarray:
        """float32 (tokens, hidden), memory-mapped read-only: every row's ordinary tokens ([CLS], [SEP] left out) at
        ``layer``, one per row of ``token_rows``. ``ValueError`` naming the stored token layers otherwise, or saying
        the file is damaged, as ``vectors``."""
        stored = self.manifest["token_layers"]
        if layer not in stored:
            held = f"holds token vectors at layer(s) {', '.join(map(str, stored))}" if stored else "holds no token vectors"
            raise ValueError(f"The store holds no token vectors at layer {checks.shown(layer)}; it {held}. Precompute "
                             "with --token-layers to store them.")
        return _mapped(self.folder / "tokens" / f"{layer}.npy", (self.manifest["tokens"], self.manifest["hidden"]))

    @cached_property
    def token_rows(self) -> pd.DataFrame:
        """One row per stored token, in the order of ``token_vectors`` (tokens, 9): sentence (its row in ``rows``),
        position (in the model's input, [CLS] = 0), token, word, key (the word lowercased), start, end, word_start,
        word_end (characters of the text). Empty without token layers."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        parts = sorted((self.folder / "tokens" / "rows").glob("*.parquet"))
        if not parts:
            return pd.DataFrame(columns=["sentence", "position", "token", "word", "key", "start", "end", "word_start",
                                         "word_end"])
        rows = pa.concat_tables([_read(part, pq.read_table) for part in parts]).combine_chunks().to_pandas()
        pa.default_memory_pool().release_unused()  # one chunk per column, as for ``rows``
        return rows

    def map(self, projection: str = "PCA", strategy: str = "mean", layer: int | None = None) -> pd.DataFrame:
        """The stored 2-D map of the ``strategy`` vectors at ``layer`` (the last when None) by ``projection``: row
        (index into ``rows``), x, y; every row for PCA, the sample the manifest states for the others."""
        name = self.column(strategy, layer)
        drawn = self.manifest.get("maps", {}).get(name, {})
        if projection not in drawn:
            held = ", ".join(drawn) or "no maps"
            raise ValueError(f"The store holds no {checks.shown(projection)} map of {name}; it holds {held}. "
                             "Precompute with --maps to draw them.")
        return _read(self.folder / "maps" / name / f"{projection}.parquet", pd.read_parquet)

    def encoder(self) -> Any:
        """The Encoder that embeds queries: the one given to ``open_store``, else the store's model, loaded on first
        use (on the CPU) and checked against the manifest's identity."""
        if self._encoder is None:
            from bertviz_core.model.encoder import load_encoder

            loaded = load_encoder(self.manifest["model"]["argument"], device="cpu")
            if loaded.info.identity != self.manifest["model"]["identity"]:
                raise identity_mismatch(str(self.folder), self.manifest["model"]["identity"], loaded)
            self._encoder = loaded
        return self._encoder

    def _method(self, name: str, rows: int, metric: str) -> dict:
        """{"kind": "exact", "rows": rows}, or the facts of the index of ``name`` with "kind": "approximate" and
        "recall" this metric's recall@10; exact, with "index_recall", when that recall is under ``SERVED_RECALL``, and
        with "not_by_direction" for a metric not in ``INDEXED_METRICS``."""
        facts = self.manifest.get("indexes", {}).get(name)
        if facts is None:
            return {"kind": "exact", "rows": rows}
        if checks.choice(metric, "metric", METRICS) not in INDEXED_METRICS:
            return {"kind": "exact", "rows": rows, "not_by_direction": metric}
        recall = facts["recall"][metric]
        if recall < SERVED_RECALL:
            return {"kind": "exact", "rows": rows, "index_recall": recall}
        return {**facts, "kind": "approximate", "rows": rows, "recall": recall}

    def search_method(self, strategy: str = "mean", layer: int | None = None, metric: str = "cosine") -> dict:
        """How ``search`` answers for this column and metric: {"kind": "exact", "rows": n}, or the index's facts
        (see ``ann.build_index``) with "kind": "approximate" and "recall" this metric's recall@10."""
        return self._method(self.column(strategy, layer), self.manifest["rows"],
                            checks.choice(metric, "metric", METRICS))

    def token_search_method(self, layer: int, metric: str = "cosine") -> dict:
        """How ``token_search`` answers at ``layer``, as ``search_method`` says it for sentences."""
        return self._method(f"tokens@{layer}", len(self.token_vectors(layer)), checks.choice(metric, "metric", METRICS))

    def _index(self, name: str):
        """The memory-mapped index of the column ``name``, opened once."""
        opened = self.__dict__.setdefault("_indexes", {})
        if name not in opened:
            opened[name] = open_index(index_path(self.folder, name))
        return opened[name]

    def _nearest(self, name: str, candidates: np.ndarray, query: np.ndarray, k: int, metric: str, method: dict,
                 exact: bool, what: str) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` rows of ``candidates`` (rows, hidden) nearest to ``query`` (hidden,) and their scores, through
        the index of ``name`` when ``method`` says there is one and not ``exact``."""
        query = checks.vector(query, "The query vector", candidates.shape[1])
        k = check_k(k, len(candidates), what)
        if method["kind"] == "approximate" and not exact:
            return approximate_top(self._index(name), candidates, query, k, metric, method["probes"])
        return tuple(found[0] for found in exact_best(candidates, query[None], k, metric))  # type: ignore[return-value]

    def search(self, query: str | np.ndarray, k: int = 10, strategy: str = "mean", layer: int | None = None,
               metric: str = "cosine", exact: bool = False) -> pd.DataFrame:
        """The ``k`` stored texts nearest to ``query`` (a text, embedded by ``encoder()``, or a vector (hidden,)),
        best first: rank, index (into the store's rows), score, text, label. With an index for the column (see
        ``search_method``) and not ``exact``, the rows are found approximately and scored exactly."""
        candidates = self.vectors(strategy, layer)  # (rows, hidden), mapped
        method = self.search_method(strategy, layer, metric)
        if isinstance(query, str):
            query = vectors_at(self.encoder().embed([checks.text(query, "The query")], [strategy]), strategy,
                               layer if layer is not None else self.manifest["model"]["num_layers"], "query")[0]
        order, scores = self._nearest(self.column(strategy, layer), candidates, query, k, metric, method, exact,
                                      "text")
        found = self.rows.iloc[order]
        return pd.DataFrame({"rank": np.arange(1, len(order) + 1), "index": order, "score": scores,
                             "text": found["text"].to_numpy(), "label": found["label"].to_numpy()})

    def token_search(self, vector: np.ndarray, layer: int, k: int = 10, metric: str = "cosine",
                     exact: bool = False) -> pd.DataFrame:
        """The ``k`` stored tokens nearest to ``vector`` (hidden,), a token's hidden state at ``layer``, best first:
        rank, index (into ``token_rows``), score, and the token's row (sentence, position, token, word, key, start,
        end, word_start, word_end). Through the layer's index as ``search`` goes through a column's."""
        candidates = self.token_vectors(layer)  # (tokens, hidden), mapped
        order, scores = self._nearest(f"tokens@{layer}", candidates, vector, k, metric,
                                      self.token_search_method(layer, metric), exact, "token")
        found = self.token_rows.iloc[order].reset_index(drop=True)
        return pd.concat([pd.DataFrame({"rank": np.arange(1, len(order) + 1), "index": order, "score": scores}),
                          found], axis=1)


def open_store(path: str, encoder: Any = None) -> VectorStore:
    """The finished store in the folder ``path``, written by ``python -m bertviz_core precompute``. With ``encoder``,
    the store is refused unless the Encoder's model identity is the manifest's (both are named), and that Encoder
    embeds text queries. ``ValueError`` for a folder that is not a finished store."""
    folder = Path(checks.text(str(path) if isinstance(path, Path) else path, "The store's path"))
    if not (folder / MANIFEST).is_file():
        started = (folder / PLAN).is_file()
        raise ValueError(f"{folder} is not a finished store: it has no {MANIFEST}"
                         + (" (its precompute stopped before the end: run the same command again to finish it)."
                            if started else ". Give the folder given to precompute as --out."))
    manifest = read_json(folder / MANIFEST)
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{folder} holds a store of format {manifest.get('format')!r}; this version reads {FORMAT}.")
    if encoder is not None:
        checks.encoder(encoder)
        if encoder.info.identity != manifest["model"]["identity"]:
            raise identity_mismatch(str(folder), manifest["model"]["identity"], encoder)
    return VectorStore(folder, manifest, encoder)
