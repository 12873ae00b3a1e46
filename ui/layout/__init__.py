"""How a chart is laid out to be read: ``present`` (presentation mode's sizes, titles that wrap to their column,
tick labels level or upright) and ``label_room`` (margins as wide as the labels need, so plotly's automargin draws
each chart once)."""
