"""Task measures' probe grids beside the silhouette's (on a corpus and on a store)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from ui.display import download_csv, score_grid_view
from ui.layout import present
from ui.warm import fragment

if TYPE_CHECKING:  # imported where used: scikit-learn would add most of a second to the first page
    from bertviz_core.measures.pooling_grid import Cell, SeparationScores
    from bertviz_core.measures.task_measures import ProbePlan, ProbeScore


@fragment
def probe_grids_view(cells: Sequence[Cell], probed: Mapping[Cell, ProbeScore], labels: Sequence[str],
                     plan: ProbePlan, silhouettes: SeparationScores) -> None:
    """The probe score's picker, the probe's grid of ``probed`` (a cell's folds) beside the silhouette's (keys
    "tm_probe", "tm_silhouette"), whether their verdicts agree, and both as one CSV. A fragment: a change of the
    score reruns only this part of the page, which is all it changes (Streamlit keeps these arguments, the
    cells' fold scores and the labels, for its reruns)."""
    from bertviz_core.measures.task_measures import agreement, probe_grid

    measure = st.radio("Probe score", ["accuracy", "macro-F1"], horizontal=True, key="tm_probe_score",
                       bind="query-params")
    probe_scores = probe_grid(cells, probed, labels, plan, measure)
    left, right = present.columns(2)
    score_grid_view(probe_scores, f"probe {measure}", "tm_probe", left)
    score_grid_view(silhouettes, "silhouette (cosine)", "tm_silhouette", right)
    st.markdown(agreement(probe_scores.verdict, silhouettes.verdict, f"probe {measure}", "silhouette"))
    download_csv(pd.concat([probe_scores.table().reset_index(names="strategy").assign(measure=f"probe {measure}"),
                            silhouettes.table().reset_index(names="strategy").assign(measure="silhouette")]),
                 "Download both grids (CSV)", "probe_and_silhouette.csv", "tm_probe_csv")
