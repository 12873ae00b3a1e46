"""Time and completeness of Why similar's pair attribution: two 20-token sentences on the bundled model, at each
number of steps, for the default attributed layer (two below the pooled one) and for the embeddings (layer 0).

    .venv/bin/python bench/attribution_speed.py [--repeats 3] [--device auto]

Prints, per row: the layer attributed, the steps, the median time (and its ratio to the 3 s goal), and the
completeness error as a share of the score (goal: at most 2 % at the default steps). The device is printed too:
on a GPU the same rows measure the CUDA path.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from bertviz_core import load_encoder  # noqa: E402
from bertviz_core.measures.attribution import DEFAULT_STEPS, default_at_layer, pair_attribution  # noqa: E402

GOAL_S, GOAL_ERROR = 3.0, 0.02
# Two sentences of 20 tokens each on the bundled model's tokenizer, [CLS] and [SEP] included.
FIRST = "The bank raised its interest rates again after the long meeting of the board last Monday."
SECOND = "We sat on the grassy river bank and watched the small boats drift slowly past the old mill."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    enc = load_encoder(device=args.device)
    tokens = [len(enc.inputs([text])[0].ids) for text in (FIRST, SECOND)]
    print(f"device {enc.info.device}; tokens {tokens}; default steps {DEFAULT_STEPS}")
    print(f"{'attributed':>12} {'steps':>5} {'time s':>7} {'/ goal':>6} {'error % of score':>17}")
    pair_attribution(enc, FIRST, SECOND, steps=1)  # the eager model built, the first pass done
    for at_layer in (default_at_layer(enc.info.num_layers), 0):
        for steps in (2, 4, 8, 16, 32):
            times, result = [], None
            for _ in range(args.repeats):
                start = time.perf_counter()
                result = pair_attribution(enc, FIRST, SECOND, steps=steps, at_layer=at_layer)
                times.append(time.perf_counter() - start)
            median = statistics.median(times)
            share = abs(result.error) / abs(result.score)
            mark = " (default)" if steps == DEFAULT_STEPS and at_layer == default_at_layer(enc.info.num_layers) else ""
            print(f"{'layer ' + str(at_layer):>12} {steps:>5} {median:>7.2f} {median / GOAL_S:>6.2f} "
                  f"{100 * share:>16.3f}%{mark}")


if __name__ == "__main__":
    main()
