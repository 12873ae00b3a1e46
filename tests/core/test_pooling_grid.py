"""The Sentence pooling grid's numbers (bertviz_core.measures.pooling_grid): a tie is explained only where it must be one."""
from __future__ import annotations

import numpy as np
import pandas as pd

from bertviz_core.measures import uncertainty
from bertviz_core.measures.pooling_grid import SeparationScores


def judged(per_layer: pd.DataFrame) -> SeparationScores:
    """``per_layer``'s scores judged on bootstrap replicates that move every cell together (so equal scores tie)."""
    resampling = uncertainty.bootstrap(40, "texts", 0.0, "0")
    noise = np.random.default_rng(0).normal(0, 0.01, size=len(resampling.indices()))
    replicates = {(row, col): per_layer.loc[row, col] + noise for row in per_layer.index for col in per_layer.columns}
    return SeparationScores(per_layer, pd.Series(dtype=float), replicates, resampling)


def test_a_tie_is_explained_only_by_strategies_that_must_tie() -> None:
    same_layer = judged(pd.DataFrame({"layer 3": [0.21, 0.21, 0.10]}, index=["mean", "mean_sqrt_len", "max"]))
    assert same_layer.verdict.tie and "mean_sqrt_len is mean multiplied" in same_layer.tie_reason()
    other_layers = judged(pd.DataFrame({"layer 3": [0.21, 0.10], "layer 5": [0.10, 0.21]},
                                       index=["mean", "mean_sqrt_len"]))
    assert other_layers.verdict.tie and other_layers.tie_reason() is None  # a tie, but no reason it must be one


def test_scores_without_replicates_name_no_best() -> None:
    assert SeparationScores(pd.DataFrame({"layer 3": [0.9, 0.1]}, index=["mean", "max"]), pd.Series(dtype=float)
                            ).verdict is None
