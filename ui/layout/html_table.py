"""A short table as one HTML element: numbers to 3 decimals (the exact value on hover), text shown as typed, a
dash where a value is missing, rows shaded by CSS when asked.

Streamlit's own static table renders every cell as Markdown, a component each, and a setting change redraws
them all: about 10 ms of the browser's main thread a table of 20 rows (docs/performance.md, "Tables as one
HTML element"). Here the browser sets one element's HTML instead. It looks like Streamlit's table
(``TABLE_STYLE``, drawn once per page by ``ui.presentation_style``).
"""
from __future__ import annotations

import html
import numbers

import numpy as np
import pandas as pd

TABLE_CLASS = "bv-table"
NUMBER_CLASS = "n"  # a cell of a numeric column: right-aligned; its float's exact value is its title
TRUTH_CLASS = "b"  # a True or False
MISSING = "—"
PRECISION = 3
# Streamlit's table, in the page's own text colour: a rounded frame, ruled cells, headers a shade lighter.
_RULE = "1px solid color-mix(in srgb, currentColor 11%, transparent)"
TABLE_STYLE = (
    f"<style>.{TABLE_CLASS} {{ overflow: auto; border: {_RULE}; border-radius: 0.5rem; font-size: 0.875rem; }} "
    f".{TABLE_CLASS} table {{ width: 100%; border-collapse: separate; border-spacing: 0; }} "
    f".{TABLE_CLASS} th, .{TABLE_CLASS} td {{ padding: 0.25rem 0.375rem; border-bottom: {_RULE}; "
    f"border-right: {_RULE}; white-space: nowrap; vertical-align: middle; text-align: left; }} "
    f".{TABLE_CLASS} th {{ font-weight: 400; color: color-mix(in srgb, currentColor 70%, transparent); }} "
    f".{TABLE_CLASS} tr > :last-child {{ border-right: none; }} "
    f".{TABLE_CLASS} tbody tr:last-child > * {{ border-bottom: none; }} "
    f".{TABLE_CLASS} td.{NUMBER_CLASS} {{ text-align: right; }}</style>"
)


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _missing(value: object) -> bool:
    return value is None or (not isinstance(value, str) and pd.api.types.is_scalar(value) and bool(pd.isna(value)))


def _cell(value: object, numeric: bool, css: str) -> str:
    """One ``<td>``: a float to PRECISION decimals with its exact value as the title, an integer as it is, text
    escaped, MISSING for a missing value."""
    attributes = f' class="{NUMBER_CLASS}"' if numeric else ""
    if css:
        attributes += f' style="{html.escape(css)}"'
    if _missing(value):
        return f"<td{attributes}>{MISSING}</td>"
    if isinstance(value, (bool, np.bool_)):
        return f'<td class="{TRUTH_CLASS}"{attributes}>{bool(value)}</td>'
    if isinstance(value, numbers.Integral):
        return f"<td{attributes}>{int(value)}</td>"
    if isinstance(value, numbers.Real):
        return f'<td{attributes} title="{float(value)!r}">{float(value):.{PRECISION}f}</td>'
    return f"<td{attributes}>{html.escape(str(value))}</td>"


def table_html(frame: pd.DataFrame, row_css: pd.Series | None = None) -> str:
    """``frame`` (rows, columns) as an HTML table without its index, in a ``TABLE_CLASS`` frame; ``row_css``, CSS
    per row aligned with the frame's index, styles every cell of its row. A column is numeric (right-aligned) when
    every value it holds is a number."""
    numeric = [all(_is_number(v) or _missing(v) for v in frame[column]) and any(map(_is_number, frame[column]))
               for column in frame.columns]
    css = [""] * len(frame) if row_css is None else row_css.reindex(frame.index).fillna("").tolist()
    header = "".join(f"<th>{html.escape(str(column))}</th>" for column in frame.columns)
    body = "".join(
        "<tr>" + "".join(_cell(value, numeric[i], row) for i, value in enumerate(values)) + "</tr>"
        for values, row in zip(frame.itertuples(index=False, name=None), css))
    return f'<div class="{TABLE_CLASS}"><table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table></div>'
