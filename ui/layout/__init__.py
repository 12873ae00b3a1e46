"""How a chart is laid out to be read: ``present`` (presentation mode's sizes, titles that wrap to their column,
tick labels level or upright), ``token_names`` (presentation mode names every token a chart shows: each row, each
column by number with a key), ``label_room`` (margins as wide as the labels need, so plotly's automargin draws
each chart once) and ``canvas`` (a heatmap drawn on a canvas, for the changes a class waits for)."""
