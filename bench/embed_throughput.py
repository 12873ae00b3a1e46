"""Encoding throughput, side by side in one run: the project's embed (every strategy at every layer)
vs sentence-transformers' encode (mean pooling, last layer only) vs a plain batched transformers loop.

    .venv/bin/python bench/embed_throughput.py [--texts 2000] [--repeats 3] [--device auto] [--model DIR]

Prints texts/second for each (median of the repeats, with min and max) and the ratios.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from bertviz_core import load_encoder  # noqa: E402
from bertviz_core.corpora import news_topics, word_presets  # noqa: E402
from bertviz_core.model.encoder import BATCH_LIMITS  # noqa: E402
from bertviz_core.model.models import bundled_model_dir  # noqa: E402
from bertviz_core.measures.pooling import supported_strategies  # noqa: E402


def varied_texts(n: int) -> list[str]:
    """n texts of 1 to 12 consecutive sentences from the built-in corpora: about 10 to 300 tokens."""
    sentences = list(news_topics()["text"]) + [t for p in word_presets().values() for t in p.texts]
    return [" ".join(sentences[(i * 7 + k) % len(sentences)] for k in range(1 + (i * 5) % 12)) for i in range(n)]


def plain_loop(tokenizer, model, texts: list[str], device: str, batch: int = 32) -> None:
    """What a tutorial notebook does: fixed-size batches in input order, mean pool of the last layer."""
    for start in range(0, len(texts), batch):
        inputs = tokenizer(texts[start:start + batch], padding=True, truncation=True, return_tensors="pt").to(device)
        with torch.inference_mode():
            hidden = model(**inputs).last_hidden_state
        mask = inputs["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        ((hidden * mask).sum(1) / mask.sum(1)).cpu().numpy()


def timed(fn, repeats: int) -> list[float]:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--model", default=None, help="a local model directory (default: the bundled one)")
    args = parser.parse_args()

    from sentence_transformers import SentenceTransformer

    encoder = load_encoder(args.model, device=args.device)
    device = encoder.info.device
    st_model = SentenceTransformer(args.model or str(bundled_model_dir()), device=device)
    texts = varied_texts(args.texts)
    lengths = [len(ids) for ids in encoder.tokenizer(texts)["input_ids"]]
    print(f"device: {device} ({torch.cuda.get_device_name(0) if device == 'cuda' else 'CPU'}), "
          f"torch threads {torch.get_num_threads()}, batch limits {BATCH_LIMITS[device]} (padded tokens, texts)")
    print(f"{len(texts)} texts, {min(lengths)}-{max(lengths)} tokens (median {statistics.median(lengths):.0f})")
    encoder.embed(texts[:64])  # warm up all three
    st_model.encode(texts[:64])
    plain_loop(encoder.tokenizer, encoder.model, texts[:64], device)

    contenders = {
        f"bertviz embed ({len(supported_strategies(encoder.info.has_pooler))} strategies x all layers)":
            lambda: encoder.embed(texts),
        "sentence-transformers encode (mean, last layer)": lambda: st_model.encode(texts, batch_size=32),
        "plain transformers loop (mean, last layer)": lambda: plain_loop(encoder.tokenizer, encoder.model, texts, device),
    }
    results = {}
    for name in contenders:  # interleave the repeats so drifts in machine load hit all three alike
        results[name] = []
    for _ in range(args.repeats):
        for name, fn in contenders.items():
            results[name] += timed(fn, 1)
    base = statistics.median(results["sentence-transformers encode (mean, last layer)"])
    print(f"\n{'':50} {'texts/s':>9} {'min':>7} {'max':>7} {'time vs sentence-transformers':>30}")
    for name, runs in results.items():
        rate = [len(texts) / r for r in runs]
        print(f"{name:50} {statistics.median(rate):9.1f} {min(rate):7.1f} {max(rate):7.1f} "
              f"{statistics.median(runs) / base:29.2f}x")


if __name__ == "__main__":
    main()
