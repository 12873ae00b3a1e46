"""The CUDA path, side by side with the CPU in one run: how far the bundled model's vectors and attention weights
on the GPU are from the CPU's, and `embed`'s throughput under each candidate `BATCH_LIMITS["cuda"]`.

    .venv/bin/python bench/cuda_check.py [--texts 4000] [--repeats 3]

Needs a CUDA GPU (it says so and exits 2 without one). Prints, for each strategy, the largest |CPU - CUDA| over
(texts, layers+1, hidden) and the smallest cosine between a text's two vectors; then texts/s (median of the repeats,
with every run) and the peak GPU memory for each batch limit, and for `mean` alone at the current limit.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

import numpy as np  # noqa: E402
import torch  # noqa: E402

from bertviz_core import load_encoder  # noqa: E402
from bertviz_core.corpora import news_topics  # noqa: E402
from bertviz_core.model.encoder import BATCH_LIMITS  # noqa: E402
from embed_throughput import varied_texts  # noqa: E402

# (padded tokens, texts) a batch; the current limit is among them.
CANDIDATES = [(2048, 32), (8192, 128), (16384, 256), (65536, 1024)]


def agreement(texts: list[str]) -> None:
    """The same texts on the CPU and on the GPU: every strategy's vectors and the attention weights."""
    cpu, gpu = load_encoder(device="cpu"), load_encoder(device="auto")
    print(f"device auto -> {gpu.info.device}; float32 matmul precision {torch.get_float32_matmul_precision()}, "
          f"TF32 {torch.backends.cuda.matmul.allow_tf32}")
    on_cpu, on_gpu = cpu.embed(texts), gpu.embed(texts)
    for strategy, a in on_cpu.items():
        b = on_gpu[strategy]
        cosines = (a * b).sum(-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)
        print(f"{strategy:16} {str(a.shape):16} max |CPU - CUDA| {np.abs(a - b).max():.1e}   "
              f"min cosine {cosines.min():.8f}")
    pairs = zip(cpu.attentions(texts[:40]), gpu.attentions(texts[:40]))
    print(f"{'attention':16} {'40 texts':16} max |CPU - CUDA| {max(np.abs(a - b).max() for a, b in pairs):.1e}")


def throughput(texts: list[str], repeats: int) -> None:
    """texts/s of ``embed`` (every strategy at every layer) under each candidate limit, and of ``mean`` alone."""
    encoder, current = load_encoder(device="cuda"), BATCH_LIMITS["cuda"]
    lengths = encoder.lengths(texts)[:, 0]
    print(f"\n{len(texts)} texts, {lengths.min()}-{lengths.max()} tokens (median {np.median(lengths):.0f}); "
          f"current limit {current}")
    for limit, strategies in [(c, None) for c in CANDIDATES] + [(current, ["mean"])]:
        BATCH_LIMITS["cuda"] = limit
        encoder.embed(texts[:300], strategies)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            encoder.embed(texts, strategies)
            torch.cuda.synchronize()
            runs.append(time.perf_counter() - start)
        print(f"limit {str(limit):14} {'mean only' if strategies else 'all strategies':15} "
              f"{len(texts) / statistics.median(runs):8.1f} texts/s (runs {', '.join(f'{r:.2f}' for r in runs)} s), "
              f"peak GPU memory {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB")
    BATCH_LIMITS["cuda"] = current


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("No CUDA GPU here: this bench compares the CUDA path with the CPU.", file=sys.stderr)
        sys.exit(2)
    print(f"{torch.cuda.get_device_name(0)}, torch {torch.__version__} (CUDA {torch.version.cuda})")
    agreement(list(news_topics()["text"]) + varied_texts(200))
    throughput(varied_texts(args.texts), args.repeats)


if __name__ == "__main__":
    main()
