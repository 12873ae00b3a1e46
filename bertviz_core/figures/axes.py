"""A heatmap's column axis: which columns are named, and how.

Columns of words (tokens, layers), and up to ``NAMED_COLUMNS`` numbered ones, keep plotly's own ticks. Past them,
numbered columns (Layer values' 384 dimensions) get a level tick every round step, one line high, so that on a
projector the rows keep the screen's height: upright labels took a fifth of it.
A marked column (an outlier dimension) is named in red among the ticks, in place of a step's tick too near it to
read; nothing is drawn over it, as a line one column wide would hide the values that make it an outlier.
"""
from __future__ import annotations

from collections.abc import Sequence

NAMED_COLUMNS = 40
STEP_TICKS = 10  # at most this many ticks of a step: three digits each in a half-width column at 150 % zoom
TICK_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)
MARKED_COLOUR = "red"


def tick_step(columns: int) -> int:
    """1 up to NAMED_COLUMNS columns; past them the least round step that leaves at most STEP_TICKS ticks."""
    if columns <= NAMED_COLUMNS:
        return 1
    return next((step for step in TICK_STEPS if columns / step <= STEP_TICKS), columns)


def column_axis(names: Sequence[str], marked: Sequence[int] = ()) -> dict:
    """A plotly category x axis over columns named ``names`` (already plain text): where they are numbers
    (dimensions), the ticks of ``tick_step``; each ``marked`` column's name in red. Words (tokens, layers) keep
    plotly's own choice, which turns them upright."""
    step = tick_step(len(names)) if all(name.isdigit() for name in names) else 1
    marked = sorted(set(marked))
    if step == 1 and not marked:
        return dict(type="category")
    ticks = sorted({i for i in range(0, len(names), step) if all(abs(i - m) >= step for m in marked)} | set(marked))
    text = [f'<span style="color:{MARKED_COLOUR}"><b>{names[i]}</b></span>' if i in marked else names[i] for i in ticks]
    # a tick mark under each named column: one column of hundreds is narrower than its label
    return dict(type="category", tickmode="array", tickvals=[names[i] for i in ticks], ticktext=text) | (
        dict(tickangle=0, ticks="outside", ticklen=6) if step > 1 else {})
