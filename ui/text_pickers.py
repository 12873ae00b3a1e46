"""Pickers whose choices come from the user's text (tokens, words, masks, sentences): their state is the label.

A selectbox over ``range(n)`` keeps the index it holds when the text changes, since the index is still valid:
the box went on naming the old text's token ("5 · the") while the page analysed the new text's token 5
("spring"). Here the options are the labels themselves, so a label the new text does not have is no option:
Streamlit puts the picker back on the default for the new text and tells the browser, and the box always
names what the page computes. A label the new text still has (same position, same token) stays chosen.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def default_index(options: Sequence[str], default: int | str) -> int:
    """``default`` as an index into ``options``: an index held inside the list (the last option for a
    shorter text), or a label (the first option when the text has no such label)."""
    if not options:
        raise ValueError("A picker needs at least one option.")
    if isinstance(default, str):
        return options.index(default) if default in options else 0
    return min(max(int(default), 0), len(options) - 1)


def choose(where: Any, label: str, options: Sequence[str], default: int | str, key: str, **kwargs: Any) -> int:
    """A selectbox (on ``where``: ``st``, a column or a container) over ``options``, unique labels built from
    the text; returns the chosen option's index. Its state, and its value in a shared link, is the label.

    An index also names an option (``set_value(3)`` in a test, or an index in session state), so code that
    picks by position keeps working; the browser always sends labels. ``kwargs`` go to ``st.selectbox``.
    """
    options = list(options)
    if len(set(options)) != len(options):
        raise ValueError(f"The picker {label!r} needs unique labels; some repeat.")

    def shown(value: Any) -> str:
        return options[value] if isinstance(value, int) and 0 <= value < len(options) else str(value)

    chosen = where.selectbox(label, options, index=default_index(options, default), format_func=shown, key=key,
                             **kwargs)
    if isinstance(chosen, int) and 0 <= chosen < len(options):
        return chosen
    return options.index(chosen) if chosen in options else default_index(options, default)
