"""Precompute throughput, side by side in one run on the same texts: Encoder.embed alone, the local engine, and
the ray engine with 1 and 2 actors (a local Ray of every core), each writing the same store (every strategy, the
last layer).

    .venv/bin/python bench/precompute_throughput.py [--texts 640 | --texts 20000] [--device auto]

Prints texts/second for each, its ratio to Encoder.embed (goals: local >= 0.98, ray >= 0.9) and the process's
peak resident memory.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd  # noqa: E402
from embed_throughput import varied_texts  # noqa: E402

from bertviz_core import load_encoder  # noqa: E402
from bertviz_core.precompute.request import Request  # noqa: E402
from bertviz_core.precompute.run import precompute  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=640, help="corpus size (the issue's figure: 20000)")
    parser.add_argument("--device", default="auto")
    arguments = parser.parse_args()
    texts = varied_texts(arguments.texts)
    folder = Path(tempfile.mkdtemp(prefix="bench-precompute-"))
    try:
        pd.DataFrame({"text": texts}).to_csv(folder / "corpus.csv", index=False)
        encoder = load_encoder(None, arguments.device)
        request = Request(device=arguments.device)
        began = time.perf_counter()
        encoder.embed(texts)
        timings = {"Encoder.embed": time.perf_counter() - began}
        runs = {"local engine": {}, "ray, 1 actor": {"engine": "ray", "actors": 1},
                "ray, 2 actors": {"engine": "ray", "actors": 2}}
        # one local Ray for both ray runs: a second start in one process can lose the package sent to its workers
        import ray

        from bertviz_core.precompute.ray_engine import RUNTIME_ENV

        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False, runtime_env=RUNTIME_ENV)
        for name, options in runs.items():
            out = folder / name.replace(" ", "").replace(",", "-")
            began = time.perf_counter()
            precompute(str(folder / "corpus.csv"), str(out), request, **options)
            timings[name] = time.perf_counter() - began
        ray.shutdown()
        print(f"{len(texts):,} texts, {encoder.info.name} on {encoder.info.device}, {os.cpu_count()} cores")
        print(f"{'':16}{'seconds':>10}{'texts/s':>10}{'vs embed':>10}")
        for name, seconds in timings.items():
            print(f"{name:16}{seconds:10.1f}{len(texts) / seconds:10.1f}{timings['Encoder.embed'] / seconds:10.2f}")
        print(f"peak resident memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB"
              " (Ray's workers not counted)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
