"""The Sentence pooling grid's numbers (bertviz_core.measures.pooling_grid): a tie is explained only where it must be one."""
from __future__ import annotations

import pandas as pd


def test_a_tie_is_explained_only_by_strategies_that_must_tie() -> None:
    from bertviz_core.measures.pooling_grid import SeparationScores

    same_layer = SeparationScores(pd.DataFrame({"layer 3": [0.21, 0.21, 0.10]}, index=["mean", "mean_sqrt_len", "max"]),
                                  pd.Series(dtype=float))
    assert same_layer.verdict.tie and "mean_sqrt_len is mean multiplied" in same_layer.tie_reason()
    other_layers = SeparationScores(pd.DataFrame({"layer 3": [0.21, 0.10], "layer 5": [0.10, 0.21]},
                                                 index=["mean", "mean_sqrt_len"]), pd.Series(dtype=float))
    assert other_layers.verdict.tie and other_layers.tie_reason() is None  # a tie, but no reason it must be one
