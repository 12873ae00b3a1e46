"""Precompute throughput and memory, side by side in one run on the same texts: Encoder.embed alone, the local
engine, the ray engine with 1 and 2 actors (a local Ray of every core), each writing the same store (every strategy,
the last layer), and sentence-transformers' encode, in this process and with its multi-process pool; then the peak
memory of a precompute of ``--memory-rows`` rows.

    .venv/bin/python bench/precompute_throughput.py [--texts 20000] [--memory-rows 100000] [--device auto]

Prints texts/second for each, its ratio to Encoder.embed (goals: local >= 0.98, ray >= 0.9), and for each engine the
same without its start (reading the corpus, loading the command's model, counting tokens, writing the rows), the largest
difference between each store's vectors and Encoder.embed's, and the memory figure: the peak resident memory of
the precompute against a process with the model at work on the same shards, keeping nothing, plus two shards of
vectors (the goal: at most that), each in a fresh process, with the largest memory of each phase of both.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from embed_throughput import varied_texts  # noqa: E402

from bertviz_core import load_encoder, open_store  # noqa: E402
from bertviz_core.model.models import bundled_model_dir  # noqa: E402
from bertviz_core.precompute.request import Request, pooled_columns, shard_outputs, store_columns  # noqa: E402
from bertviz_core.precompute.run import SHARD_ROWS, precompute  # noqa: E402
from bertviz_core.runtime.store import release_free_memory  # noqa: E402

def _status(field: str) -> int:
    """Bytes of ``field`` (VmRSS, VmHWM, RssAnon, RssFile) of this process."""
    return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith(field + ":"))


class Sampler:
    """The largest resident memory (VmRSS, and its anonymous and file-backed parts) of this process in each phase,
    sampled every 20 ms by a thread: ``phase`` names the current one."""

    def __init__(self, phase: str) -> None:
        import threading

        self.phase, self.largest, self._stop = phase, {}, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            figures = {field: _status(field) for field in ("VmRSS", "RssAnon", "RssFile")}
            kept = self.largest.setdefault(self.phase, figures)
            self.largest[self.phase] = {field: max(kept[field], figures[field]) for field in figures}

    def stop(self) -> dict:
        self._stop.set()
        self._thread.join()
        return self.largest


def model_at_work(corpus_file: str, device: str, shard_rows: int) -> dict:
    """Run in a fresh process: its memory after the imports (idle) and with the model loaded; its peak once the model
    has computed the store's columns of the first shard, and once it has computed every shard's, one after another,
    keeping nothing (the model at work on this corpus: its largest batches, and the heap the allocator keeps between
    runs of varied sizes); and one shard's stored vectors in bytes."""
    idle = _status("VmRSS")
    sampler = Sampler("load")
    encoder = load_encoder(None, device)
    loaded = _status("VmRSS")
    columns = store_columns(encoder, None, None)
    texts = pd.read_csv(corpus_file)["text"].astype(str).tolist()
    sampler.phase = "first shard"
    vectors, _ = shard_outputs(encoder, texts[:shard_rows], columns, [])
    first = _status("VmHWM")
    sampler.phase = "every shard"
    for start in range(shard_rows, len(texts), shard_rows):
        shard_outputs(encoder, texts[start:start + shard_rows], columns, [])
        release_free_memory()  # as the precompute does after each shard
    return {"idle": idle, "loaded": loaded, "first": first, "working": _status("VmHWM"), "phases": sampler.stop(),
            "shard": sum(block.nbytes for block in vectors.values())}


def precompute_peak(corpus_file: str, out: str, device: str, shard_rows: int) -> dict:
    """Run in a fresh process: its memory after the imports (idle), its peak (VmHWM) after a whole precompute, and
    its largest memory in each of its phases: "start" (the corpus read, counted and written as rows, the model
    loaded), "shards" (the model at work, shard by shard) and "finish" (the check and the manifest)."""
    idle = _status("VmRSS")
    sampler = Sampler("start")

    def progress(done: int, total: int) -> None:
        sampler.phase = "finish" if done == total else "shards"

    report = precompute(corpus_file, out, Request(device=device), shard_rows=shard_rows, progress=progress)
    return {"idle": idle, "peak": _status("VmHWM"), "phases": sampler.stop(), "rows": report.summary.used}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=20_000, help="corpus size of the throughput table (0: skip it)")
    parser.add_argument("--memory-rows", type=int, default=100_000, help="rows of the memory figure (0: skip it)")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--no-ray", action="store_true", help="leave out the Ray runs (a machine without Ray)")
    arguments = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-precompute-"))
    try:
        if arguments.texts:
            throughput(corpus(arguments.texts), folder, arguments.device, not arguments.no_ray)
        if arguments.memory_rows:
            memory(arguments.memory_rows, folder, arguments.device)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def corpus(rows: int) -> list[str]:
    """``rows`` distinct texts like a corpus of tickets or sentences: one to three of the built-in corpora's
    sentences each (12 to 55 tokens, 28 at the median), numbered. The longer texts of ``varied_texts`` (up to 300
    tokens) ran at 68 a second on two cores: five minutes a run for 20,000, too long for six runs."""
    texts = varied_texts(rows * 4 + 12)
    short = [text for i, text in enumerate(texts) if i % 12 in (0, 5, 10)]  # its texts of 1, 2 and 3 sentences
    return [f"{i}. {text}" for i, text in enumerate(short[:rows])]


def throughput(texts: list[str], folder: Path, device: str, with_ray: bool = True) -> None:
    """The throughput table and each store's largest difference from Encoder.embed (the Ray rows when
    ``with_ray``)."""
    pd.DataFrame({"text": texts}).to_csv(folder / "corpus.csv", index=False)
    encoder = load_encoder(None, device)
    began = time.perf_counter()
    embedded = encoder.embed(texts)
    timings = {"Encoder.embed": time.perf_counter() - began}
    expected = pooled_columns(embedded, store_columns(encoder, None, None))  # what each store must hold
    runs = {"local engine": {}}
    if with_ray:
        runs.update({"ray, 1 actor": {"engine": "ray", "actors": 1}, "ray, 2 actors": {"engine": "ray", "actors": 2}})
        # one local Ray for both ray runs: a second start in one process can lose the package sent to its workers
        import ray

        from bertviz_core.precompute.ray_engine import RUNTIME_ENV

        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False, runtime_env=RUNTIME_ENV)
    differences = {}
    for name, options in runs.items():
        out = folder / name.replace(" ", "").replace(",", "-")
        began, computing = time.perf_counter(), []  # computing: when the store was planned and shards began

        def note_start(done: int, total: int) -> None:
            if not computing:
                computing.append(time.perf_counter())

        precompute(str(folder / "corpus.csv"), str(out), Request(device=device), progress=note_start, **options)
        timings[name] = time.perf_counter() - began
        timings[f"  its shards alone (start {computing[0] - began:.1f} s)"] = time.perf_counter() - computing[0]
        store = open_store(str(out))
        differences[name] = max(float(np.abs(store.vectors(strategy, layer) - vectors).max())
                                for (strategy, layer), vectors in expected.items())
    if with_ray:
        ray.shutdown()
    timings.update(sentence_transformers(texts, encoder.info.device))
    print(f"{len(texts):,} texts, {encoder.info.name} on {encoder.info.device}, {os.cpu_count()} cores")
    print(f"{'':34}{'seconds':>9}{'texts/s':>9}{'vs embed':>10}{'max |store - embed|':>21}")
    for name, seconds in timings.items():
        difference = f"{differences[name]:21.1e}" if name in differences else ""
        print(f"{name:34}{seconds:9.1f}{len(texts) / seconds:9.1f}{timings['Encoder.embed'] / seconds:10.2f}{difference}")


def sentence_transformers(texts: list[str], device: str) -> dict[str, float]:
    """Seconds of sentence-transformers' encode of ``texts`` (the bundled model, its own pipeline: mean pooling of
    the last layer), in this process and with its multi-process pool (one process per core, or per GPU)."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(bundled_model_dir()), device=device)
    began = time.perf_counter()
    model.encode(texts)
    timings = {"sentence-transformers encode": time.perf_counter() - began}
    import torch

    devices = ([f"cuda:{i}" for i in range(torch.cuda.device_count())] if device.startswith("cuda")
               else ["cpu"] * (os.cpu_count() or 1))
    pool = model.start_multi_process_pool(devices)
    try:
        model.encode(texts[:64], pool=pool)  # the processes load the model first: not counted
        began = time.perf_counter()
        model.encode(texts, pool=pool)
        timings[f"sentence-transformers, pool of {len(devices)}"] = time.perf_counter() - began
    finally:
        model.stop_multi_process_pool(pool)
    return timings


def _in_fresh_process(call: str) -> dict:
    """The JSON that ``call`` (an expression of this module's functions) returns, run in a process of its own."""
    code = f"import json, precompute_throughput as bench; print(json.dumps(bench.{call}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent)
    return json.loads(done.stdout.strip().splitlines()[-1])


def memory(rows: int, folder: Path, device: str) -> None:
    """The peak memory of a local precompute of ``rows`` rows against the model at work on the same shards plus two
    shards' vectors, each measured in a fresh process, and the largest memory of each phase of both."""
    pd.DataFrame({"text": corpus(rows)}).to_csv(folder / "memory.csv", index=False)
    corpus_file, out = str(folder / "memory.csv"), str(folder / "memory")
    began = time.perf_counter()
    work = _in_fresh_process(f"model_at_work({corpus_file!r}, {device!r}, {SHARD_ROWS})")
    run = _in_fresh_process(f"precompute_peak({corpus_file!r}, {out!r}, {device!r}, {SHARD_ROWS})")
    bound = work["working"] + 2 * work["shard"]
    mib = 2 ** 20
    print(f"\nmemory of a local precompute of {run['rows']:,} rows ({time.perf_counter() - began:.0f} s, shards of "
          f"{SHARD_ROWS:,} rows, {work['shard'] / mib:.1f} MiB of vectors each), each in a fresh process:")
    print(f"  idle (imports) {work['idle'] / mib:,.0f} MiB; the model loaded {work['loaded'] / mib:,.0f} MiB; at work "
          f"on the first shard (peak) {work['first'] / mib:,.0f} MiB, on every shard one after another, keeping nothing "
          f"{work['working'] / mib:,.0f} MiB; + 2 shards = {bound / mib:,.0f} MiB (the goal)")
    print(f"  the precompute: idle {run['idle'] / mib:,.0f} MiB, peak {run['peak'] / mib:,.0f} MiB "
          f"({'within' if run['peak'] <= bound else 'OVER'} the goal by {abs(bound - run['peak']) / mib:,.0f} MiB); "
          f"the store's vectors, which it never holds: {run['rows'] * work['shard'] / SHARD_ROWS / mib:,.0f} MiB")
    for phase, figures in [*work["phases"].items(), *run["phases"].items()]:
        print(f"    largest in phase {phase:7} resident {figures['VmRSS'] / mib:,.0f} MiB = anonymous "
              f"{figures['RssAnon'] / mib:,.0f} + file-backed {figures['RssFile'] / mib:,.0f}")


if __name__ == "__main__":
    main()
