"""A precompute: a corpus file in, a store of its sentence vectors out (``layout``), shard by shard, resumable.

The corpus is read and cleaned as an upload is (``corpora.files``), measured in tokens (``Encoder.lengths``), and
its plan written with the store's rows before any model run. An engine then computes the shards not yet done:
``local`` runs ``request.shard_outputs`` in this process; ``ray`` (``precompute.ray_engine``) runs the same call in
Ray Data actors. Either hands back each shard's vectors, which this process writes (with the rows of its tokens, when
token layers are asked for); the manifest comes last.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.corpora.files import CorpusFile, read_corpus_file
from bertviz_core.corpora.uploads import UploadSummary
from bertviz_core.model.encoder import Encoder, library_versions, load_encoder
from bertviz_core.measures.pooling import check_strategies
from bertviz_core.model.identity import content_digest
from bertviz_core.model.lengths import Lengths, cut_note
from bertviz_core.precompute.ann import INDEX_CHOICES, write_indexes
from bertviz_core.precompute.layout import (
    FORMAT, MANIFEST, PLAN, Column, StoreFiles, check_out, column_name, read_json, token_starts,
)
from bertviz_core.precompute.maps import Drawn, MapJob, check_maps, map_processes, write_maps
from bertviz_core.precompute.request import Request, ShardVectors, layer_numbers, shard_outputs, store_columns, token_rows
from bertviz_core.runtime.store import release_free_memory

SHARD_ROWS = 1024  # rows per shard: what a stopped run loses at most, and what one write holds in memory
ENGINES = ("local", "ray")
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Report:
    """What a precompute did: the input's rows (``summary``, as an upload's are counted), texts cut to fit the model
    (``cut``: the note, or None), shards computed now and found done, and the seconds it took."""

    store: str
    summary: UploadSummary
    cut: str | None
    computed: int
    resumed: int
    seconds: float


def local_shards(encoder: Encoder, files: StoreFiles, shards: list[int]) -> ShardVectors:
    """The local engine: ``shard_outputs`` of each shard's texts, in this process."""
    for shard in shards:
        yield shard, *shard_outputs(encoder, files.shard_texts(shard), files.columns, files.token_layers)


def _rows_frame(corpus: CorpusFile, lengths: Lengths) -> pd.DataFrame:
    """The store's rows.parquet: text, label (None without labels), row, tokens, dropped, truncated."""
    found = corpus.corpus
    return pd.DataFrame({"text": found.texts, "label": found.labels, "row": np.asarray(found.rows, dtype=np.int64),
                         "tokens": lengths.kept, "dropped": lengths.dropped, "truncated": lengths.dropped > 0})


def _plan(encoder: Encoder, request: Request, corpus: CorpusFile, digest: str, columns: list[Column],
          token_layers: list[int], tokens: int, maps: list[str], shard_rows: int) -> dict:
    """What a store holds: a resumed run must have the same plan."""
    return {"format": FORMAT, "model": {"argument": request.model, "name": encoder.info.name,
                                        "identity": encoder.info.identity},
            "input": {"digest": digest, "format": corpus.format, "text_column": corpus.text_column,
                      "label_column": corpus.label_column},
            "columns": [column_name(*column) for column in columns], "rows": len(corpus.corpus.texts),
            "token_layers": token_layers, "tokens": tokens, "hidden": encoder.info.hidden_size,
            "map_names": maps, "map_sample": request.map_sample, "shard_rows": shard_rows}


def _store_files(out: Path, plan: dict, columns: list[Column], starts: np.ndarray | None) -> StoreFiles:
    """The store's files, after checking that a store started in ``out`` has the same ``plan``."""
    files = StoreFiles(out, columns, plan["rows"], plan["hidden"], plan["shard_rows"], plan["token_layers"], starts)
    if (out / PLAN).exists():
        before = read_json(out / PLAN)
        changed = sorted(key for key in plan.keys() | before.keys() if plan.get(key) != before.get(key))
        if changed:
            raise ValueError(f"{out} holds a store started with another {' and '.join(changed)} (see its {PLAN}). "
                             "Run the command as it was first run to finish it, or choose another --out.")
    return files


def precompute(location: str, out: str, request: Request = Request(), text_column: str | None = None,
               label_column: str | None = None, engine: str = "local", shard_rows: int = SHARD_ROWS,
               progress: Progress | None = None, map_progress: Progress | None = None,
               index_progress: Progress | None = None, said: Callable[[str], None] | None = None,
               **ray_options: object) -> Report:
    """Compute the sentence vectors of the corpus at ``location`` (see ``corpora.files``) into the store ``out``.

    A store started before with the same plan is resumed from its finished shards; a finished one is left as it
    is. ``progress(rows done, rows)`` is called after each shard, ``map_progress(maps drawn, maps)`` around each map,
    ``index_progress(indexes built, indexes)`` around each search index; ``said(line)`` gets ``plan_lines`` before any
    model run. ``ray_options`` (``address``, ``actors``) go to the ray engine. ``ValueError`` with a sentence for a
    bad input file or column, a model that fails to load, a full disk, an ``out`` that holds something else or cannot
    be written, or a store started with other settings; every setting and ``out`` are checked before the corpus is
    read, the model loaded or Ray started.
    """
    began = time.perf_counter()
    shard_rows = checks.whole_number(shard_rows, "shard_rows", 1)
    progress, map_progress = checks.callback(progress), checks.callback(map_progress, "map_progress")
    index_progress, said = checks.callback(index_progress, "index_progress"), checks.callback(said, "said")
    _check_settings(request, engine, ray_options)
    out_path = Path(checks.text(out, "The store's folder"))
    check_out(out_path)
    encoder, files, manifest, summary, cut = _start(location, out_path, request, text_column, label_column, engine,
                                                    shard_rows)
    release_free_memory()  # the corpus read is over: the local engine holds one shard's texts at a time
    pending, finished = files.pending(), (out_path / MANIFEST).exists()
    if said is not None:
        for line in plan_lines(manifest, text_column is None, label_column is None, engine,
                               0 if finished else len(files.columns) * len(manifest["map_names"])):
            said(line)
    with _session(engine if pending or not finished else "local", ray_options):
        done = files.rows - sum(files.shard_length(shard) for shard in pending)
        if progress is not None:
            progress(done, files.rows)
        measured, encoding = {}, time.perf_counter()
        if pending:
            if engine == "ray":
                from bertviz_core.precompute.ray_engine import ray_shards

                shards = ray_shards(request, encoder.info.identity, files, pending, **ray_options)
            else:
                shards = local_shards(encoder, files, pending)
            for shard, vectors, tokens in shards:
                files.write_shard(shard, vectors, tokens, token_rows(encoder, files.shard_texts(shard),
                                                                     files.shard_span(shard)[0])
                                  if files.token_layers else None)
                done += files.shard_length(shard)
                release_free_memory()  # each shard's activations differ in size: without this, freed heap piles up
                if progress is not None:
                    progress(done, files.rows)
            if engine == "local":  # Ray's actors may run on devices other than this process's: none to name
                measured = {"speed": {"texts": sum(map(files.shard_length, pending)),
                                      "seconds": time.perf_counter() - encoding, "device": encoder.info.device}}
        if not finished:
            files.check_done()
            vectors_of = {column: np.load(files.vector_path(column), mmap_mode="r") for column in files.columns}
            drawn = write_maps(out_path, files.columns, manifest["map_names"], request.map_sample, vectors_of,
                               map_progress, _drawer(engine, vectors_of, request.map_sample, ray_options))
            indexed = write_indexes(out_path, {
                **{column_name(*column): vectors for column, vectors in vectors_of.items()},
                **{f"tokens@{layer}": np.load(files.token_path(layer), mmap_mode="r") for layer in files.token_layers}},
                request.index, index_progress)
            files.finish({**manifest, "maps": drawn, "indexes": indexed, **measured,
                          "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    return Report(str(out_path), summary, cut, len(pending), files.shards - len(pending), time.perf_counter() - began)


def plan_lines(manifest: dict, text_guessed: bool, label_guessed: bool, engine: str, maps: int) -> list[str]:
    """What a run will use and do, said before it starts: the text and label columns (and whether they were guessed)
    and, when it draws any, how many maps and where."""
    text, label = manifest["input"]["text_column"], manifest["input"]["label_column"]
    lines = [f"Texts: the column {text!r}" + (" (guessed; --text-column names another)." if text_guessed else "."),
             (f"Labels: the column {label!r}" if label else "Labels: none")
             + ((" (guessed; --label-column names another)." if label else
                 " (no column looked like labels; --label-column names one).") if label_guessed else ".")]
    if maps:
        names = manifest["map_names"]
        processes = map_processes(maps, manifest["rows"], names)
        where = "PCAs here, the others as tasks on Ray's workers" if engine == "ray" else (
            f"{processes} at a time in worker processes" if processes > 1 else "one at a time in this process")
        lines.append(f"Maps: {maps:,} to draw ({' and '.join(names)} of each of the {len(manifest['columns']):,} "
                     f"columns), {where}.")
    return lines


def _session(engine: str, ray_options: dict) -> AbstractContextManager:
    """One Ray session for the shards and the maps (``ray_engine.ray_session``); nothing for the local engine."""
    if engine != "ray":
        return nullcontext()
    from bertviz_core.precompute.ray_engine import ray_session

    return ray_session(ray_options.get("address"))


def _drawer(engine: str, vectors_of: dict[Column, np.ndarray], sample: int,
            ray_options: dict) -> Callable[[list[MapJob]], Drawn] | None:
    """What draws the maps: Ray's workers for the ray engine (``ray_engine.ray_maps``), else None (``write_maps``'
    processes)."""
    if engine != "ray":
        return None
    from bertviz_core.precompute.ray_engine import ray_maps

    return partial(ray_maps, vectors_of=vectors_of, sample=sample, address=ray_options.get("address"))


def _check_settings(request: Request, engine: str, ray_options: dict) -> None:
    """What of the settings can be checked without the model, before any work: the engine and its options, known
    strategies and maps, layers of 0 or more (their top is the model's), the map sample and the index choice."""
    checks.choice(engine, "engine", ENGINES)
    if engine == "ray":
        from bertviz_core.precompute.ray_engine import check_options

        check_options(**ray_options)
    elif ray_options:
        raise ValueError(f"{', '.join(ray_options)} go with the ray engine (engine='ray'); this run's is {engine}.")
    if request.strategies is not None:
        check_strategies(request.strategies, has_pooler=True)  # whether the model has a pooler is the model's
    for name, layers in (("layers", request.layers), ("token_layers", request.token_layers)):
        layer_numbers(layers or [], None, name)
    check_maps(request.maps)
    checks.whole_number(request.map_sample, "map_sample", 1)
    checks.choice(request.index, "index", INDEX_CHOICES)


def _start(location: str, out: Path, request: Request, text_column: str | None, label_column: str | None,
           engine: str, shard_rows: int) -> tuple[Encoder, StoreFiles, dict, UploadSummary, str | None]:
    """Read the corpus, load the model, check the request, and create the store (or find the one a stopped run
    began): the Encoder, the store's files, its manifest but the maps, the corpus's counts and its truncation note."""
    corpus = read_corpus_file(location, text_column, label_column)
    encoder = load_encoder(request.model, "cpu" if engine == "ray" else request.device)
    columns = store_columns(encoder, request.strategies, request.layers)
    token_layers = layer_numbers(request.token_layers or [], encoder.info.num_layers, "token_layers")
    maps = check_maps(request.maps)
    lengths = Lengths.of(encoder.lengths(corpus.corpus.texts))
    starts = token_starts(lengths.kept, encoder.tokenizer.num_special_tokens_to_add(pair=False)) if token_layers \
        else None
    plan = _plan(encoder, request, corpus, content_digest(str(location)), columns, token_layers,
                 0 if starts is None else int(starts[-1]), maps, shard_rows)
    out.mkdir(parents=True, exist_ok=True)
    files = _store_files(out, plan, columns, starts)
    if not (out / PLAN).exists():
        files.create(plan, _rows_frame(corpus, lengths))
    return (encoder, files, _manifest(plan, encoder, corpus, lengths), corpus.corpus.summary,
            cut_note(encoder.info.max_length, lengths.dropped.tolist()))


def _manifest(plan: dict, encoder: Encoder, corpus: CorpusFile, lengths: Lengths) -> dict:
    """The plan, with what a reader needs besides: layers per strategy, dtype, counts, the model's facts."""
    summary = corpus.corpus.summary
    info = encoder.info
    return {**plan, "dtype": "float32", "strategies": sorted({name.split("@")[0] for name in plan["columns"]}),
            "model": {**plan["model"], "num_layers": info.num_layers, "max_length": info.max_length,
                      "model_type": info.model_type, "device": info.device, "libraries": library_versions()},
            "counts": {"rows_read": summary.rows, "texts": summary.used, "blank_lines": summary.blank_lines,
                       "empty_texts": summary.empty_texts, "label_only": summary.label_only,
                       "duplicates": summary.duplicates, "truncated": int((lengths.dropped > 0).sum())}}
