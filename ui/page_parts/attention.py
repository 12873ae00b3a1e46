"""Attention's head view: a canvas naming every token or, for a long text, plotly's heatmap."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ui.display import chart
from ui.layout.canvas import canvas_heatmap

# Up to this many tokens the head view is a canvas naming every token (past them its slanted labels would overlap);
# a longer text's is plotly's heatmap, one image: a canvas of a rect a cell took 1.7 s a layer change at 200 tokens
# and 18 s at 512, plotly's 0.2-0.4 s.
CANVAS_TOKENS = 40


def head_view_chart(weights: np.ndarray, labels: Sequence[str], title: str, boundary: int | None, key: str) -> None:
    """The (queries, keys) attention ``weights`` of one head or a mean, keyed ``key``: query tokens (``labels``)
    down the side and key tokens across, Blues from 0, each cell's weight on hover, ``boundary`` (a pair's second
    text's first token) ruled in red both ways. Up to ``CANVAS_TOKENS`` tokens a canvas naming every token (in
    presentation mode the keys by number, the rows naming them); past them ``figures.attention_figure``."""
    from bertviz_core import figures

    if len(labels) > CANVAS_TOKENS:
        chart(figures.attention_figure(weights, labels, title, boundary), key=key)
        return
    canvas_heatmap(weights, labels, labels, title, key, zrange=(0.0, None), annotate=False,
                   x_title="key (attended to)", y_title="query (attending)", value_title="weight", boundary=boundary,
                   numbered_columns=True)
