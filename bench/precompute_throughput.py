"""Precompute throughput and memory, side by side in one run on the same texts: Encoder.embed alone, the local
engine, the ray engine with 1 and 2 actors (a local Ray of every core), each writing the same store (every strategy,
the last layer), and sentence-transformers' encode, in this process and with its multi-process pool; then the peak
memory of a precompute of ``--memory-rows`` rows, in a process of its own.

    .venv/bin/python bench/precompute_throughput.py [--texts 20000] [--memory-rows 100000] [--device auto]

Prints texts/second for each, its ratio to Encoder.embed (goals: local >= 0.98, ray >= 0.9), the largest
difference between each store's vectors and Encoder.embed's, and the memory figure: the peak resident memory of
the precompute against the process idle with the model loaded plus two shards of vectors (the goal: at most that).
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
from bertviz_core.models import bundled_model_dir  # noqa: E402
from bertviz_core.precompute.request import Request, pooled_columns, store_columns  # noqa: E402
from bertviz_core.precompute.run import SHARD_ROWS, precompute  # noqa: E402

# Run in a fresh process: its memory with the model loaded (VmRSS), its peak (VmHWM) once the model has embedded one
# shard's texts (the model at work: one batch's activations and one shard's pooled output), its peak after the
# whole precompute, and one shard's stored vectors in bytes.
MEMORY_PROBE = """
import json, sys
import numpy as np
import pandas as pd
from bertviz_core import load_encoder, open_store
from bertviz_core.precompute.request import Request
from bertviz_core.precompute.run import precompute
def status(field):
    return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith(field + ":"))
encoder = load_encoder(None, sys.argv[3])
loaded = status("VmRSS")
encoder.embed(pd.read_csv(sys.argv[1])["text"].astype(str).tolist()[:int(sys.argv[4])])
working = status("VmHWM")
precompute(sys.argv[1], sys.argv[2], Request(device=sys.argv[3]), shard_rows=int(sys.argv[4]))
store = open_store(sys.argv[2])
row_bytes = sum(np.load(store.folder / "vectors" / f"{name}.npy", mmap_mode="r")[0].nbytes
                for name in store.manifest["columns"])
print(json.dumps({"loaded": loaded, "working": working, "peak": status("VmHWM"), "shard": row_bytes * int(sys.argv[4]),
                  "rows": len(store.texts)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=20_000, help="corpus size of the throughput table (0: skip it)")
    parser.add_argument("--memory-rows", type=int, default=100_000, help="rows of the memory figure (0: skip it)")
    parser.add_argument("--device", default="auto")
    arguments = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-precompute-"))
    try:
        if arguments.texts:
            throughput(corpus(arguments.texts), folder, arguments.device)
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


def throughput(texts: list[str], folder: Path, device: str) -> None:
    """The throughput table and each store's largest difference from Encoder.embed."""
    pd.DataFrame({"text": texts}).to_csv(folder / "corpus.csv", index=False)
    encoder = load_encoder(None, device)
    began = time.perf_counter()
    embedded = encoder.embed(texts)
    timings = {"Encoder.embed": time.perf_counter() - began}
    expected = pooled_columns(embedded, store_columns(encoder, None, None))  # what each store must hold
    runs = {"local engine": {}, "ray, 1 actor": {"engine": "ray", "actors": 1},
            "ray, 2 actors": {"engine": "ray", "actors": 2}}
    # one local Ray for both ray runs: a second start in one process can lose the package sent to its workers
    import ray

    from bertviz_core.precompute.ray_engine import RUNTIME_ENV

    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False, runtime_env=RUNTIME_ENV)
    differences = {}
    for name, options in runs.items():
        out = folder / name.replace(" ", "").replace(",", "-")
        began = time.perf_counter()
        precompute(str(folder / "corpus.csv"), str(out), Request(device=device), **options)
        timings[name] = time.perf_counter() - began
        store = open_store(str(out))
        differences[name] = max(float(np.abs(store.vectors(strategy, layer) - vectors).max())
                                for (strategy, layer), vectors in expected.items())
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


def memory(rows: int, folder: Path, device: str) -> None:
    """The peak memory of a local precompute of ``rows`` rows against idle with the model plus two shards."""
    pd.DataFrame({"text": corpus(rows)}).to_csv(folder / "memory.csv", index=False)
    began = time.perf_counter()
    probe = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(folder / "memory.csv"), str(folder / "memory"),
                            device, str(SHARD_ROWS)], capture_output=True, text=True, check=True,
                           cwd=Path(__file__).resolve().parents[1])
    figures = json.loads(probe.stdout.strip().splitlines()[-1])
    bound = figures["working"] + 2 * figures["shard"]
    mib = 2 ** 20
    print(f"\nmemory of a local precompute of {figures['rows']:,} rows ({time.perf_counter() - began:.0f} s, "
          f"shards of {SHARD_ROWS:,} rows, {figures['shard'] / mib:.1f} MiB of vectors each):")
    print(f"  the model loaded {figures['loaded'] / mib:,.0f} MiB; at work on one shard (peak) "
          f"{figures['working'] / mib:,.0f} MiB; + 2 shards = {bound / mib:,.0f} MiB; precompute's peak "
          f"{figures['peak'] / mib:,.0f} MiB ({'within' if figures['peak'] <= bound else 'OVER'} the goal); the store's "
          f"vectors, which it never holds: {figures['rows'] * figures['shard'] / SHARD_ROWS / mib:,.0f} MiB")


if __name__ == "__main__":
    main()
