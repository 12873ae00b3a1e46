"""The ray engine: the same ``Encoder.embed`` as the local engine, in Ray Data actors, on a laptop or a cluster.

The shards still to compute become a Ray dataset, one block per shard (row, text); ``map_batches`` runs them
through a pool of actors, each holding one Encoder (one GPU per actor where CUDA is there); the vectors stream
back to this process, which writes each shard once all its rows have come (``run.precompute``). Reading and
cleaning the input, and writing the store, happen here, so the store is where the command runs and its rules
are the local engine's.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.precompute.layout import Column, StoreFiles, column_name
from bertviz_core.precompute.maps import (
    Drawn, MapJob, coordinates, framed, one_map, sample_rows, sampled_facts,
)
from bertviz_core.precompute.request import Request, ShardVectors, shard_outputs

# The package's own folder, sent to the workers, so that a cluster's nodes run this code without installing it
# (its dependencies and the model must be there). A Ray started by the caller needs it too: ray.init(runtime_env=...).
RUNTIME_ENV = {"py_modules": [str(Path(__file__).resolve().parents[1])]}


def _token_key(layer: int) -> str:
    return f"tokens@{layer}"


class EmbedActor:
    """One Ray actor: loads the model once, then runs ``shard_outputs`` on each batch of rows (row, text) it is given:
    {"row": (batch,), column name: (batch, hidden), "tokens@<layer>": (batch,) of (ordinary tokens, hidden) arrays}."""

    def __init__(self, request: Request, identity: str, columns: list[Column], token_layers: list[int],
                 threads: int) -> None:
        import torch

        from bertviz_core.model.encoder import load_encoder
        from bertviz_core.precompute.reader import identity_mismatch

        torch.set_num_threads(threads)  # the actor's share of its node's cores
        self.encoder = load_encoder(request.model, request.device)
        if self.encoder.info.identity != identity:  # a node with other files or library versions
            raise identity_mismatch("being computed", identity, self.encoder)
        self.columns, self.token_layers = columns, token_layers

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        vectors, tokens = shard_outputs(self.encoder, [str(text) for text in batch["text"]], self.columns,
                                        self.token_layers)
        ragged = {}
        for layer, per_text in tokens.items():  # an object array: Ray keeps each text's own number of tokens
            ragged[_token_key(layer)] = np.empty(len(per_text), dtype=object)
            ragged[_token_key(layer)][:] = per_text
        return {"row": batch["row"], **{column_name(*column): vectors[column] for column in self.columns}, **ragged}


def _gather(batches: Iterator[dict[str, np.ndarray]], files: StoreFiles) -> ShardVectors:
    """Each shard's vectors once all its rows have come back, whatever order and batches they come in."""
    filling: dict[int, tuple[dict[Column, np.ndarray], dict[int, list], np.ndarray]] = {}  # shard: (vectors, tokens,
    # rows received)
    for batch in batches:
        rows = np.asarray(batch["row"], dtype=np.int64)
        for shard in np.unique(rows // files.shard_rows):
            start, _ = files.shard_span(int(shard))
            if shard not in filling:
                length = files.shard_length(int(shard))
                filling[shard] = ({column: np.empty((length, files.hidden), np.float32) for column in files.columns},
                                  {layer: [None] * length for layer in files.token_layers}, np.zeros(length, dtype=bool))
            vectors, tokens, received = filling[shard]
            mine = rows // files.shard_rows == shard
            for column in files.columns:
                vectors[column][rows[mine] - start] = batch[column_name(*column)][mine]
            for layer in files.token_layers:
                for row, states in zip(rows[mine], batch[_token_key(layer)][mine]):
                    tokens[layer][row - start] = states
            received[rows[mine] - start] = True
            if received.all():
                yield int(shard), *filling.pop(shard)[:2]
    if filling:
        raise ValueError(f"Ray returned only part of {len(filling)} shard(s); run the command again to finish them.")


def check_options(address: str | None = None, actors: int | None = None) -> None:
    """``ValueError`` for an ``address`` that is not text or fewer than 1 ``actors``: said before Ray starts."""
    if address is not None:
        checks.text(address, "address")
    if actors is not None:
        checks.whole_number(actors, "actors", 1)


def ray_shards(request: Request, identity: str, files: StoreFiles, shards: list[int],
               address: str | None = None, actors: int | None = None) -> ShardVectors:
    """The vectors of ``shards`` computed on Ray (``ray_session(address)``). ``actors`` (default: one per GPU, else
    1) each hold one Encoder; ``ValueError`` with Ray's reason when a batch fails."""
    check_options(address, actors)
    import ray

    with ray_session(address):
        ray.data.DataContext.get_current().enable_progress_bars = False  # the command draws its own bar
        resources = ray.cluster_resources()
        gpus = 1 if request.device in ("auto", "cuda") and resources.get("GPU", 0) >= 1 else 0
        actors = max(1, int(resources.get("GPU", 0))) if actors is None else actors
        threads = max(1, int(resources.get("CPU", 1)) // actors)
        frames = [pd.DataFrame({"row": np.arange(*files.shard_span(s), dtype=np.int64),
                                "text": files.shard_texts(s)}) for s in shards]
        dataset = ray.data.from_pandas(frames).map_batches(
            EmbedActor, fn_constructor_kwargs={"request": request, "identity": identity, "columns": files.columns,
                                               "token_layers": files.token_layers, "threads": 1 if gpus else threads},
            batch_size=files.shard_rows, batch_format="numpy", compute=ray.data.ActorPoolStrategy(size=actors),
            num_gpus=gpus,
            num_cpus=1 if gpus else threads)
        try:
            yield from _gather(dataset.iter_batches(batch_size=None, batch_format="numpy"), files)
        except ray.exceptions.RayError as err:
            raise ValueError(f"A Ray worker failed: {_reason(err)}") from err


@contextmanager
def ray_session(address: str | None = None) -> Iterator[None]:
    """Ray for a run: the cluster at ``address`` (e.g. "ray://head:10001", or "auto"), else a local Ray started
    here and stopped after; a Ray already running in this process is used as it is."""
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address=address, log_to_driver=False, include_dashboard=False, runtime_env=RUNTIME_ENV)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def ray_maps(jobs: list[MapJob], vectors_of: dict[Column, np.ndarray], sample: int,
             address: str | None = None) -> Drawn:
    """Each job's map as ``maps.one_map`` draws it, in the order they finish: the non-linear ones as Ray tasks of one
    CPU each on the cluster's workers (each sent only its sampled rows), the PCAs here meanwhile (they stream the
    memory-mapped column, which a cluster's nodes cannot read). ``ValueError`` with Ray's reason when a task fails."""
    import ray

    with ray_session(address):
        place = ray.remote(num_cpus=1)(coordinates)
        running = {}
        for column, name in jobs:
            if name != "PCA":
                rows = sample_rows(len(vectors_of[column]), sample)
                chosen = np.asarray(vectors_of[column][rows], dtype=np.float64)
                running[place.remote(name, chosen)] = ((column, name), rows)
        for column, name in jobs:
            if name == "PCA":
                yield ((column, name), *one_map(name, vectors_of[column], sample))
        while running:
            (done,), _ = ray.wait(list(running), num_returns=1)
            job, rows = running.pop(done)
            try:
                coords = ray.get(done)
            except ray.exceptions.RayError as err:
                raise ValueError(f"A Ray worker failed: {_reason(err)}") from err
            yield job, framed(rows, coords), sampled_facts(len(rows), len(vectors_of[job[0]]))


def _reason(err: Exception) -> str:
    """The first line of the worker's own error, without Ray's traceback around it."""
    cause = getattr(err, "cause", None) or err
    lines = [line for line in str(cause).splitlines() if line.strip()]
    return next((line for line in reversed(lines) if "Error:" in line), lines[-1] if lines else repr(err))

