"""What the core's bad-input tests share (issue #27, item 5): the outcomes a case may name, the inputs the
cases call with, and the check of one case. The cases themselves are tables in tests/core/test_bad_input_*.py,
split by the modules they call; test_bad_input_every_function.py checks that every public function of
bertviz_core is in one of them or in its ``EXEMPT``.

Each case calls one function with one bad argument — None, a wrong type (a float, a bool, a string where a list
is wanted), a number out of range (negative, huge, NaN), an unknown registry name, an empty input, lengths that
do not match, NaN in an array, too few rows — and says what must happen:

* ``ERR``: a ``ValueError`` raised by bertviz_core itself (not leaked from numpy or scikit-learn), whose message
  is a sentence a person understands;
* ``OK``: a result, with no NaN anywhere in it;
* ``NAN``: a result holding NaN, which the function's docstring explains.

Any other exception, a result where an error was expected, or an undocumented NaN fails the case.
"""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import inspect
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import DEVICE, save_tiny_bert

import bertviz_core
from bertviz_core import Encoder, load_encoder
from bertviz_core.measures import attention as att
from bertviz_core.views import comparison as cmp
from bertviz_core.measures import neighbours as nb
from bertviz_core.model import token_index as ti
from bertviz_core.words import vocab as vc

ERR, OK, NAN = "error", "result", "documented NaN"
NaN = float("nan")
MASKED = "The man went to the [MASK] to buy milk."
CORPUS = ["The bank raised its rates.", "We sat on the river bank.", "The bank vault was open.",
          "A heron flew over the river."]
# Every module of the core, found, not listed, so a new module's public functions need cases here: the top level's
# and its subpackages' (recipes write code, precompute is checked through its command, and corpora hold texts,
# except the registry of corpus sources). {short name: dotted path}, as cases name them ("cka.cka_matrix").
UNCHECKED_PACKAGES = {"recipes", "precompute", "corpora"}
MODULES = {m.name: f"bertviz_core.{m.name}" for m in pkgutil.iter_modules(bertviz_core.__path__)
           if not m.ispkg and m.name != "__main__"} | {
    m.name: f"bertviz_core.{package.name}.{m.name}"
    for package in pkgutil.iter_modules(bertviz_core.__path__) if package.ispkg and package.name not in UNCHECKED_PACKAGES
    for m in pkgutil.iter_modules([str(Path(bertviz_core.__file__).parent / package.name)]) if m.name != "charts"} | {
    "corpus_sources": "bertviz_core.corpora.corpus_sources", "figures": "bertviz_core.figures.charts"}  # figures.x


@dataclass(frozen=True)
class Case:
    call: Callable[[SimpleNamespace], Any]
    outcome: str = ERR


def nan_rows(rows: int, dim: int = 8) -> np.ndarray:
    x = np.random.default_rng(1).normal(size=(rows, dim))
    x[1, 2] = np.nan
    return x



# ---- the encoders and the inputs they make ----------------------------------------------------------------

def inputs(bundled: Encoder, tiny: Encoder, tiny_no_pooler: Encoder,
           tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """What ``c`` holds in the cases (conftest's ``bad_input`` fixture, built once a session)."""
    mlm = load_encoder(str(save_tiny_bert(tmp_path_factory.mktemp("mlm_bad"), layers=2, mlm=True)), device=DEVICE)
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(20, 8)), rng.normal(size=(20, 8))
    labels = ["a", "b"] * 10
    short, long = bundled.inputs(["The bank.", "A much longer sentence about the river bank and its vault."])
    weights, long_weights = bundled.attentions(["The bank.", "A much longer sentence about the river bank."])
    nan_weights = weights.copy()
    nan_weights[0, 0, 1, 1] = np.nan
    roles = att.token_roles(short.tokens, "[CLS]", "[SEP]")
    long_roles = att.token_roles(long.tokens, "[CLS]", "[SEP]")
    one_weights = np.ones((2, 2, 1, 1), dtype=np.float32)
    index = ti.token_index(bundled, CORPUS)
    query_layers = bundled.encode(["the bank"])[0].hidden_states[:, 2]  # (layers+1, hidden)
    pooled, pooled_query = bundled.embed(CORPUS), bundled.embed(["the bank"])
    nan_pooled_query = {name: np.where(np.arange(v.shape[-1]) == 3, np.nan, v) for name, v in pooled_query.items()}
    hidden = bundled.encode(["The bank vault."])[0].hidden_states
    nan_hidden = hidden.copy()
    nan_hidden[1, 1, 1] = np.nan
    pair = bundled.encode(["The bank."], ["The river."])[0]
    per_layer = rng.normal(size=(20, 3, 8))
    text = "The bank vault."
    (tmp := tmp_path_factory.mktemp("not_a_model")).joinpath("config.json").write_text("{}")
    return SimpleNamespace(
        b=bundled, t=tiny, m=mlm, nopool=tiny_no_pooler, tmp=tmp, x=x, y=y, labels=labels,
        ref=rng.normal(size=(12, 8)), texts4=["a", "b", "c", "d"],
        comparison=cmp.compare(x[:4], rng.normal(size=(12, 8)), "cosine", "none"),
        pair=pair, alone=bundled.encode(["The bank.", "The river."]),
        weights=weights, nan_weights=nan_weights, long_weights=long_weights, roles=roles, long_roles=long_roles,
        rolled=att.rollout(weights), long_rolled=att.rollout(long_weights),
        statistics=att.head_statistics(weights, roles),
        one_weights=one_weights, one_roles=att.token_roles(["x"], "[CLS]", "[SEP]"),
        index=index, one_token_index=ti.token_index(bundled, ["bank", "river"]),
        one_sentence_index=ti.token_index(bundled, ["The bank vault."]),
        query=query_layers[1], nan_query=np.where(np.arange(len(query_layers[1])) == 3, np.nan, query_layers[1]),
        query_layers=query_layers, found=nb.nearest_tokens(index, query_layers[1], 1, 3),
        context=nb.contextuality(index),
        pooled=pooled, pooled_mean={"mean": pooled["mean"]}, pooled_query=pooled_query,
        nan_pooled_query=nan_pooled_query,
        hidden=hidden, nan_hidden=nan_hidden,
        per_layer=per_layer, by_rule={"mean": per_layer, "first": per_layer[:, :, ::-1]},
        strategies={"layer 1": lambda v: v[..., 1, :], "layer 2": lambda v: v[..., 2, :]},
        scores=pd.DataFrame([[0.5, 0.7], [0.6, 0.2]], index=["mean", "max"], columns=["layer 1", "layer 2"]),
        pairs=pd.DataFrame({"sentence1": list("abcdef"), "sentence2": list("ghijkl"), "score": range(6)}),
        tokens=bundled.tokenize(text), vocabulary=vc.vocabulary_table(bundled.tokenizer),
        encodings=bundled.encode(CORPUS),
    )


# ---- checking one case ------------------------------------------------------------------------------------

LIBRARY_SPEAK = ("NoneType", "fits failed", "could not convert", "invalid literal", "object of type", "has no attribute",
                 "unhashable", "operands could not be broadcast", "zero-size array", "Expected 2D array",
                 "Input contains NaN", "index out of bounds", "truth value of an array")


def function_of(name: str) -> Callable:
    """The function a case's key names: "Encoder.tokenize" or "module.function"."""
    owner, function = name.split(":")[0].split(".")
    return getattr(Encoder if owner == "Encoder" else importlib.import_module(MODULES[owner]), function)


def raised_in_core(err: BaseException) -> bool:
    """Whether the innermost frame of ``err``'s traceback is bertviz_core's own code (not numpy's or sklearn's)."""
    frames = traceback.extract_tb(err.__traceback__)
    return bool(frames) and f"{Path(bertviz_core.__file__).parent}" in frames[-1].filename


def nan_in(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds NaN anywhere: numbers, arrays, tensors, frames, containers and dataclasses."""
    if depth > 6:
        return False
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    if isinstance(value, torch.Tensor):
        return bool(value.is_floating_point() and value.isnan().any())
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            return bool(np.isnan(value).any())
        return value.dtype == object and any(nan_in(v, depth + 1) for v in value.ravel()[:10_000])
    if isinstance(value, pd.DataFrame):
        return any(nan_in(value[col].to_numpy(), depth + 1) for col in value.columns
                   if value[col].dtype.kind in "fc")
    if isinstance(value, pd.Series):
        return value.dtype.kind in "fc" and nan_in(value.to_numpy(), depth + 1)
    if isinstance(value, dict):
        return any(nan_in(v, depth + 1) for v in value.values())
    if isinstance(value, list | tuple):
        return any(nan_in(v, depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(nan_in(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    return False


def check(name: str, case: Case, c: SimpleNamespace) -> None:
    """One case: a clear ValueError from the core, or a result without NaN (or with the NaN its docstring explains)."""
    try:
        result = case.call(c)
    except ValueError as err:
        message = str(err)
        assert case.outcome == ERR, f"expected {case.outcome}, got ValueError: {message}"
        assert raised_in_core(err), f"a ValueError from {traceback.extract_tb(err.__traceback__)[-1].filename}: {message}"
        assert len(message.split()) >= 4, f"too short a message: {message!r}"
        assert not any(speak in message for speak in LIBRARY_SPEAK), f"a library's message: {message!r}"
        return
    except Exception as err:  # noqa: BLE001 - the point: no other exception may come out
        pytest.fail(f"{type(err).__name__}: {str(err)[:300]}")
    assert case.outcome != ERR, f"no ValueError: returned {type(result).__name__}"
    if case.outcome == OK:
        assert not nan_in(result), "the result holds NaN"
    else:
        assert nan_in(result), "a case marked NaN gave none"
        assert "NaN" in (inspect.getdoc(function_of(name)) or ""), "NaN that the docstring does not explain"

