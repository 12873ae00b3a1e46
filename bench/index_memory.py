"""Peak memory of building the Similar contexts token index, against its theoretical size.

    .venv/bin/python bench/index_memory.py [--rows 5000]

Each corpus is indexed in a fresh process (the peak, VmHWM, only grows): first the built-in corpus, then
``--rows`` rows made from it. Idle is the process with the model loaded and two batches of the built-in
sentences encoded (what a server that has shown any page holds: the model's working memory); the
theoretical size is tokens x (layers+1) x hidden x 2 bytes (float16). Goal: peak <= idle + 2x theoretical.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]


def memory_mb() -> dict[str, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return {k: int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM")}


def child(rows: int) -> None:
    """Index the built-in corpus (``rows`` 0) or ``rows`` rows made from it; print one JSON line."""
    import time

    from bertviz_core import load_encoder
    from bertviz_core.corpora import reference_corpus
    from bertviz_core.model.token_index import token_index

    encoder = load_encoder(device="cpu")
    base = reference_corpus()
    encoder.encode(list(base[:64]))  # idle = a server that has run the model, as any page it showed did
    texts = list(base) if not rows else [f"{base[i % len(base)]} ({i})" for i in range(rows)]
    idle = memory_mb()
    start = time.perf_counter()
    index = token_index(encoder, texts)
    seconds = time.perf_counter() - start
    after = memory_mb()
    print(json.dumps({"texts": len(texts), "tokens": len(index.tokens), "theoretical": index.theoretical_bytes / 2**20,
                      "idle": idle["VmRSS"], "peak": after["VmHWM"], "after": after["VmRSS"], "seconds": seconds}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child)
        return
    print(f"{'corpus':>22} {'tokens':>8} {'theoretical MB':>15} {'idle MB':>8} {'peak MB':>8} "
          f"{'peak - idle':>12} {'ratio':>6} {'build s':>8}")
    for rows, name in ((0, "built-in"), (args.rows, f"{args.rows:,} rows")):
        out = subprocess.run([sys.executable, __file__, "--child", str(rows)], capture_output=True, text=True,
                             check=True, env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
        r = json.loads(out.stdout.strip().splitlines()[-1])
        grown = r["peak"] - r["idle"]
        print(f"{name:>22} {r['tokens']:8,} {r['theoretical']:15.1f} {r['idle']:8.0f} {r['peak']:8.0f} "
              f"{grown:12.0f} {grown / r['theoretical']:5.2f}x {r['seconds']:8.1f}")
    print("goal: peak - idle <= 2x theoretical")


if __name__ == "__main__":
    main()
