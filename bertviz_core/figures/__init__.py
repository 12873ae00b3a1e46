"""Figures: numbers in, a plotly figure (or a Vega-Lite spec) out, built and never drawn; user text escaped.

``charts`` (one chart each: heatmaps, curves, rankings; its names are this package's own, so
``from bertviz_core import figures`` then ``figures.heatmap_figure``), ``grid_figures`` (grids of many scatters),
``map_figures`` (one map of any number of points), ``pair_figures`` (two texts' tokens side by side), ``axes``
(which of a heatmap's many columns are named), ``canvas_heatmaps`` (a heatmap as a Vega-Lite view on a canvas).

May import: checks.
"""
from bertviz_core.figures.charts import (
    PAIR_KINDS, attention_figure, guess_grid_figure, heatmap_figure, hover_texts,
    layer_distributions_figure, layer_label, layer_share_figure, measures_figure, pair_curves_figure, plain,
    plains, rank_curves_figure, score_grid_figure, table_cells, table_heatmap, thumbnail_grid_figure,
    token_labels,
)

__all__ = ['PAIR_KINDS', 'attention_figure', 'guess_grid_figure', 'heatmap_figure', 'hover_texts', 'layer_distributions_figure', 'layer_label', 'layer_share_figure', 'measures_figure', 'pair_curves_figure', 'plain', 'plains', 'rank_curves_figure', 'score_grid_figure', 'table_cells', 'table_heatmap', 'thumbnail_grid_figure', 'token_labels']
