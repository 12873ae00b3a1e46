"""A store of results shared by every caller: arrays in memory within ``BERTVIZ_CACHE_MB``, larger ones on disk.

A result that fits the memory budget is kept in memory, least recently used dropped first. One larger than
the whole memory budget (a big upload's token index or pooled vectors) is written once to an unlinked
temporary file and memory-mapped read-only, within ``BERTVIZ_SPILL_MB`` of disk: the page keeps reading
the same arrays on every setting change, so nothing is computed again, while the kernel may drop their
pages from memory under pressure and reads them back on use. Without this, a result over the budget would
be recomputed (the model run again) on every rerun of its page.

The app keeps one store for every browser session (``ui.result_store``); a notebook or a batch job can keep
its own. Keys are any hashable; ``digest`` names a corpus by its content.
"""
from __future__ import annotations

import collections
import ctypes
import ctypes.util
import dataclasses
import hashlib
import os
import tempfile
import threading
from collections.abc import Callable, Hashable
from typing import Any

import cachetools
import numpy as np

import bertviz_core.checks as checks

DEFAULT_CACHE_MB = 1024
DEFAULT_SPILL_MB = 8192


def map_arrays(value: Any, change: Callable[[np.ndarray], np.ndarray]) -> Any:
    """``value`` with each of its numpy arrays replaced by ``change(array)``. A result is a dict of arrays (a
    pooled corpus), a list of arrays (attention weights), a list of Encodings (their hidden states and pooler
    outputs), a token index (its vectors), an attention summary (its rollout and thumbnails) or a pair attribution
    (its matrix and the two texts' token vectors)."""
    if hasattr(value, "first_vectors"):
        return dataclasses.replace(value, matrix=change(value.matrix), first_vectors=change(value.first_vectors),
                                   second_vectors=change(value.second_vectors))
    if hasattr(value, "vectors"):
        return dataclasses.replace(value, vectors=change(value.vectors))
    if hasattr(value, "rollout"):
        return dataclasses.replace(value, rollout=change(value.rollout), thumbnails=change(value.thumbnails))
    if isinstance(value, dict) and all(isinstance(array, np.ndarray) for array in value.values()):
        return {name: change(array) for name, array in value.items()}
    if isinstance(value, list) and all(isinstance(item, np.ndarray) or hasattr(item, "hidden_states")
                                       for item in value):
        return [change(item) if isinstance(item, np.ndarray) else dataclasses.replace(
            item, hidden_states=change(item.hidden_states), pooler=None if item.pooler is None else change(item.pooler))
            for item in value]
    raise ValueError("A stored result must be a dict of arrays, a list of arrays or of Encodings, a TokenIndex, an "
                     "AttentionSummary or a PairAttribution; "
                     f"it is {checks.shown(value)}.")


def arrays(value: Any) -> list[np.ndarray]:
    """The numpy arrays in a result (see ``map_arrays``)."""
    found: list[np.ndarray] = []
    map_arrays(value, lambda array: found.append(array) or array)
    return found


def nbytes(value: Any) -> int:
    """Bytes held by the numpy arrays in a result (see ``map_arrays``)."""
    return sum(array.nbytes for array in arrays(value))


def _megabytes(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return (int(value) if value.isdigit() and int(value) > 0 else default) << 20


def cache_budget() -> int:
    """Bytes of arrays the shared store may hold in memory: BERTVIZ_CACHE_MB (MiB), default 1,024."""
    return _megabytes("BERTVIZ_CACHE_MB", DEFAULT_CACHE_MB)


def spill_budget() -> int:
    """Bytes of larger results the shared store may keep on disk: BERTVIZ_SPILL_MB (MiB), default 8,192."""
    return _megabytes("BERTVIZ_SPILL_MB", DEFAULT_SPILL_MB)


def spill_folder() -> str:
    """Where spilled results are written: BERTVIZ_SPILL_DIR, or the system's temporary folder."""
    return os.environ.get("BERTVIZ_SPILL_DIR") or tempfile.gettempdir()


def to_disk(array: np.ndarray, folder: str) -> np.ndarray:
    """A read-only memory map holding ``array``'s values, in a file with no name: the disk space returns to
    the system once the last reference to the map is gone, and no file outlives the server."""
    checks.numbers(array, "array", None, min_rows=0, finite=False)
    if isinstance(array, np.memmap) and not array.flags.writeable:
        return array  # on disk already, read-only (``offload`` hands large results back so)
    if array.size == 0:
        return array  # nothing to map: a file of no bytes cannot be memory-mapped
    with tempfile.TemporaryFile(dir=folder) as file:
        mapped = np.memmap(file, dtype=array.dtype, mode="w+", shape=array.shape)
        mapped[...] = array
        mapped.flush()
    mapped.flags.writeable = False
    return mapped


class ByteBoundedStore:
    """Results shared by every session: in memory within ``budget`` bytes, least recently used dropped first
    (cachetools' LRUCache sized by ``nbytes``); a result larger than ``budget`` memory-mapped from disk
    within ``disk_budget`` bytes (see the module's docstring). One larger than both is not kept."""

    def __init__(self, budget: int, disk_budget: int = 0, folder: str | None = None) -> None:
        self.budget, self.disk_budget, self.folder = budget, disk_budget, folder or spill_folder()
        self._memory: cachetools.LRUCache = cachetools.LRUCache(maxsize=budget, getsizeof=nbytes)
        self._disk: cachetools.LRUCache = cachetools.LRUCache(maxsize=max(disk_budget, 1), getsizeof=nbytes)
        self._lock = threading.Lock()  # cachetools' caches are not thread-safe
        self._computing: dict[Hashable, threading.Lock] = {}  # one lock per result being computed
        self._asking: collections.Counter[Hashable] = collections.Counter()  # callers of each result missed

    def get(self, key: Hashable) -> Any:
        with self._lock:
            found = self._memory.get(key)
            return self._disk.get(key) if found is None else found

    def put(self, key: Hashable, value: Any) -> Any:
        """Keep ``value`` and return what is kept: ``value`` itself, its memory-mapped copy when it exceeds
        the memory budget, or None when it exceeds the disk budget too (then nothing is kept)."""
        size = nbytes(value)
        if size <= self.budget:
            with self._lock:
                self._memory[key] = value
            return value
        if size > self.disk_budget:
            return None
        mapped = map_arrays(value, lambda array: to_disk(array, self.folder))
        with self._lock:
            self._disk[key] = mapped
        return mapped

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``key``'s result, computed by ``compute()`` on a miss and kept (see ``put``). Kept arrays are made
        read-only: every caller gets the same ones, without a copy. One computation per key at a time: a caller
        that asks while another computes it waits for that result."""
        value = self.get(key)
        if value is not None:
            return value
        with self._lock:
            computing = self._computing.setdefault(key, threading.Lock())
            self._asking[key] += 1
        try:
            with computing:
                value = self.get(key)
                if value is None:
                    value = compute()
                    for array in arrays(value):
                        array.flags.writeable = False
                    kept = self.put(key, value)
                    value = value if kept is None else kept
                    release_free_memory()
        finally:
            with self._lock:
                self._asking[key] -= 1
                if not self._asking[key]:  # the last caller out: a waiter still holds the lock it waits on
                    del self._asking[key]
                    self._computing.pop(key, None)
        return value

    @property
    def used(self) -> int:
        """Bytes of the results kept in memory now."""
        return int(self._memory.currsize)

    @property
    def on_disk(self) -> int:
        """Bytes of the results kept on disk now."""
        return int(self._disk.currsize)

    def __len__(self) -> int:
        return len(self._memory) + len(self._disk)


_LIBC = ctypes.CDLL(ctypes.util.find_library("c") or None)


def release_free_memory() -> None:
    """Hand memory the model run freed back to the system. glibc keeps freed heap pages of many
    medium allocations (torch's activations) for reuse, so without this a server's memory only grows
    with each large corpus, whatever the store keeps; ``malloc_trim`` is glibc's, a no-op elsewhere."""
    trim = getattr(_LIBC, "malloc_trim", None)
    if trim is not None:
        trim(0)


def digest(texts: tuple[str, ...] | list[str]) -> str:
    """A short content hash of a corpus, to key stored results without hashing every text each time."""
    texts = checks.strings(texts, "texts")
    return hashlib.sha256("\x1f".join(texts).encode("utf-8")).hexdigest()[:24]
