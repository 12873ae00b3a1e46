"""Time of the Compare models tables once both models' vectors are cached: CKA (linear and debiased) and RSA of a
6-layer, 384-wide model against a 12-layer, 768-wide one (MiniLM against bert-base), over 1,000 texts.

    .venv/bin/python bench/cka_speed.py [--texts 1000] [--repeats 5]

The vectors are random, the same shapes as the two models' pooled vectors (7 and 13 layers with the embeddings);
the time does not depend on their values. Prints each table's median time and its ratio to the goal (1 s).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from bertviz_core.measures.cka import cka_matrix, rsa_matrix  # noqa: E402

GOAL_S = 1.0


def timed(run, repeats: int) -> float:  # noqa: ANN001
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    a = rng.normal(size=(args.texts, 7, 384)).astype(np.float32)
    b = rng.normal(size=(args.texts, 13, 768)).astype(np.float32)
    print(f"{args.texts:,} texts, A (texts, 7, 384) against B (texts, 13, 768); median of {args.repeats}")
    for name, run in (("linear CKA", lambda: cka_matrix(a, b)), ("debiased CKA", lambda: cka_matrix(a, b, True)),
                      ("RSA", lambda: rsa_matrix(a, b))):
        seconds = timed(run, args.repeats)
        print(f"{name:>13}: {seconds:6.3f} s  = {seconds / GOAL_S:4.2f} x the goal ({GOAL_S:.0f} s)")


if __name__ == "__main__":
    main()
