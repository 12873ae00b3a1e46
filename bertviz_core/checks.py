"""Checks of what callers give the public functions, shared by every module.

Each check returns the value in the form the function goes on with (a list, an int, a numpy array) or raises
``ValueError`` with a sentence that says what was wrong and what is allowed, e.g. "layer must be a whole number
from 0 to 6; it is 1.5." A function calls them at its entry, before any work, so no TypeError, IndexError or
library message (numpy's, scikit-learn's) reaches the caller, and no NaN slips into a result unnoticed.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from bertviz_core.model.encoding import check_unicode


def shown(value: Any, limit: int = 60) -> str:
    """``value`` as a message quotes it: a string in quotes (cut short), a number or None as it is, a short list as
    written, and anything else by its kind ("a list of 40 items", "an array of shape (3, 4)", "a DataFrame")."""
    if isinstance(value, str):
        return f"'{value}'" if len(value) <= limit else f"'{value[:limit - 1]}…'"
    text = repr(value)
    if isinstance(value, list | tuple | dict | set) and len(text) > limit:
        return f"{_a(type(value).__name__)} of {len(value)} items"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    if value is None or isinstance(value, bytes | int | float | complex | np.number | list | tuple | dict | set):
        return text if len(text) <= limit else text[:limit - 1] + "…"
    return _a(type(value).__name__)


def _a(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def is_whole(value: Any) -> bool:
    """Whether ``value`` is a whole number (a Python or numpy int; not a bool, not a float like 2.0)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def _span(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"from {low} to {high}"
    return f"of at least {low}" if low is not None else f"of at most {high}" if high is not None else ""


def whole_number(value: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int, when it is a whole number from ``low`` to ``high`` (either may be None: no bound)."""
    if is_whole(value) and (low is None or value >= low) and (high is None or value <= high):
        return int(value)
    if low is not None and high is not None and high < low:
        raise ValueError(f"{name} has no allowed value here: there is nothing from {low} to {high}.")
    raise ValueError(f"{name} must be a whole number {_span(low, high)}; it is {shown(value)}.".replace("  ", " "))


def real_number(value: Any, name: str, low: float | None = None, high: float | None = None) -> float:
    """``value`` as a float, when it is a finite number (not a bool) from ``low`` to ``high``."""
    if (isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | np.bool_)
            and math.isfinite(value) and (low is None or value >= low) and (high is None or value <= high)):
        return float(value)
    raise ValueError(f"{name} must be a number {_span(low, high)}; it is {shown(value)}.".replace("  ", " "))


def choice(value: Any, name: str, options: Iterable[str]) -> str:
    """``value`` when it is one of ``options`` (a registry's names)."""
    options = list(options)
    if isinstance(value, str) and value in options:
        return value
    raise ValueError(f"Unknown {name} {shown(value)}. Choose from: {', '.join(options)}.")


def items(values: Any, name: str, what: str) -> list:
    """``values`` as a list; refused when it is None, a single string or not a collection at all."""
    if values is None or isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise ValueError(f"{name} must be a list of {what}; it is {shown(values)}"
                         + (" (wrap a single one in a list: [value])." if isinstance(values, str) else "."))
    return list(values)


def strings(values: Any, name: str, what: str = "texts") -> list[str]:
    """``values`` as a list of strings (a list, tuple or Series of them; not one string)."""
    found = items(values, name, what)
    for i, item in enumerate(found):
        if not isinstance(item, str):
            raise ValueError(f"{name} must all be strings; item {i + 1} is {shown(item)}.")
    return found


def texts(values: Any, name: str = "texts") -> list[str]:
    """``strings`` whose every text is valid Unicode (see ``encoding.check_unicode``)."""
    found = strings(values, name)
    for i, one in enumerate(found):
        check_unicode(one, f"Text {i + 1}")
    return found


def text(value: Any, name: str = "The text") -> str:
    """``value`` when it is one string of valid Unicode."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string; it is {shown(value)}.")
    return check_unicode(value, name)


def labels(values: Any, name: str = "labels", count: int | None = None) -> list[str]:
    """Class labels as strings: each a string or a whole number (3 becomes "3"), none missing; ``count`` of
    them when given (one per vector or text)."""
    found = items(values, name, "labels (strings or whole numbers)")
    for i, item in enumerate(found):
        if not isinstance(item, str) and not is_whole(item):
            missing = item is None or (isinstance(item, float) and math.isnan(item))
            raise ValueError(f"{name} must be strings or whole numbers; label {i + 1} is "
                             + ("missing (empty)." if missing else f"{shown(item)}."))
    if count is not None and len(found) != count:
        raise ValueError(f"There are {len(found)} {name} for {count} vectors; give one label per vector.")
    return [item if isinstance(item, str) else str(int(item)) for item in found]


def indices(values: Any, name: str, size: int, allow_empty: bool = False) -> list[int]:
    """``values`` as a list of ints, each a position from 0 to ``size`` - 1; at least one unless ``allow_empty``."""
    found = items(values, name, f"whole numbers from 0 to {size - 1}")
    if not found and not allow_empty:
        raise ValueError(f"{name} is empty: choose at least one, from 0 to {size - 1}.")
    return [whole_number(item, f"Each of {name}", 0, size - 1) for item in found]


def numbers(value: Any, name: str, dims: str | None, min_rows: int = 1, finite: bool = True) -> np.ndarray:
    """``value`` as a numpy array of real numbers with as many axes as ``dims`` names, e.g. "(n, dim)" (None: any
    number), at least ``min_rows`` along the first, and, with ``finite``, no NaN or infinity. Its dtype is kept
    when it is already numeric (no copy)."""
    ndim = None if dims is None else len([axis for axis in dims.strip("()").split(",") if axis.strip()])
    array = value if isinstance(value, np.ndarray) else None
    if array is None and value is not None and not isinstance(value, str | bytes | dict):
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            array = None
    if array is None or array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be an array of numbers" + (f" of shape {dims}" if dims else "")
                         + f"; it is {shown(value)}.")
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} axes, {dims}; it has shape {array.shape}.")
    if (array.shape[0] if array.ndim else array.size) < min_rows:
        raise ValueError(f"{name} has {array.shape[0] if array.ndim else array.size} "
                         f"{'row' if array.ndim > 1 else 'value'}(s); at least {min_rows} needed.")
    if finite and array.dtype.kind == "f" and not np.isfinite(array).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0]) if array.ndim else ()
        raise ValueError(f"{name[:1].upper()}{name[1:]} must be finite numbers, but there is NaN or infinity at "
                         f"position {bad}. Check how they were computed.")
    return array


def vector(value: Any, name: str, width: int) -> np.ndarray:
    """``value`` as one vector of ``width`` finite numbers, (width,), to compare with vectors of that width."""
    found = numbers(value, name, "(dim,)")
    if len(found) != width:
        raise ValueError(f"{name} has {len(found)} dimensions; the vectors it is compared with have {width}: use "
                         "vectors of the same model (and layer).")
    return found


def same_rows(first: np.ndarray, second: Any, first_name: str, second_name: str) -> None:
    """``ValueError`` unless ``second`` has as many items (rows) as ``first``."""
    if len(second) != len(first):
        raise ValueError(f"{second_name} has {len(second)} item(s) for {len(first)} {first_name}; give one for "
                         "each.")


def frame(value: Any, name: str, columns: Iterable[str] = ()) -> pd.DataFrame:
    """``value`` when it is a pandas DataFrame with ``columns``."""
    columns = list(columns)
    if not isinstance(value, pd.DataFrame):
        raise ValueError(f"{name} must be a pandas DataFrame; it is {shown(value)}.")
    missing = [column for column in columns if column not in value.columns]
    if missing:
        raise ValueError(f"{name} needs the columns {', '.join(columns)}; it lacks {', '.join(missing)}.")
    return value


def instance(value: Any, kind: type, name: str, made_by: str) -> Any:
    """``value`` when it is a ``kind`` (an object the core makes, e.g. a TokenIndex), saying which function makes one."""
    if not isinstance(value, kind):
        raise ValueError(f"{name} must be {_a(kind.__name__)}, as {made_by} returns it; it is {shown(value)}.")
    return value


def encoder(value: Any, name: str = "encoder") -> Any:
    """``value`` when it is an Encoder (checked by what it offers: the core modules that take one are imported by
    encoder.py, so they cannot import the class)."""
    if not all(hasattr(value, member) for member in ("inputs", "encode", "info", "tokenizer")):
        raise ValueError(f"{name} must be an Encoder, as load_encoder returns it; it is {shown(value)}.")
    return value


def callback(value: Any, name: str = "progress", optional: bool = True) -> Callable | None:
    """``value`` when it can be called (or is None, when ``optional``)."""
    if not callable(value) and not (optional and value is None):
        raise ValueError(f"{name} must be a function{' (or None)' if optional else ''}; it is {shown(value)}.")
    return value
