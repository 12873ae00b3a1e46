"""Why two texts are similar: the cosine of their pooled vectors split into token × token shares.

Integrated Jacobians (Möller, Nikolaev & Padó, EMNLP 2023), integrated gradients extended to a pair of inputs.
With u(x) the unit-length pooled vector of a text whose token states entering layer ``at_layer + 1`` are x, and r
those of a reference text (every token but the specials replaced by ``REFERENCES[reference]``), each token i of
the first text gets the vector

    c_i = ∫₀¹ ∂u/∂x_i (r + α (x - r)) · (x_i - r_i) dα    (D,), and Σ_i c_i = u(x) - u(r)

(the gradient theorem), and likewise d_j for the second text. The matrix A_ij = c_i · d_j sums to
(u(a) - u(r_a)) · (u(b) - u(r_b)) = score - reference_score, where reference_score = s(r_a, b) + s(a, r_b) -
s(r_a, r_b) is what the references alone account for. The integral is a Gauss-Legendre sum of ``steps`` points,
as captum's "gausslegendre"; ``error`` is what it misses. Each c_i is a forward-mode derivative (one per token
and step); a row's sum is integrated gradients of u(a) · (u(b) - u(r_b)), which captum's
LayerIntegratedGradients computes by reverse mode (tests check the two agree).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.autograd.forward_ad as forward_ad

import bertviz_core.checks as checks
from bertviz_core.model.encoder import Encoder, record
from bertviz_core.model.encoding import ModelInput
from bertviz_core.measures.pooling import POOLINGS, BatchStates

REFERENCES: dict[str, str] = {"[PAD]": "pad_token", "[MASK]": "mask_token"}  # name: the tokenizer's attribute
DEFAULT_STEPS = 8
MAX_TOKENS = 128  # a side longer than this is refused with its cost, or cut (``cut=True``)
CHUNK_TOKENS = 1024  # tokens per batch of forward-mode passes (rows × tokens): the progress moves after each
PAIR_STRATEGIES: tuple[str, ...] = tuple(name for name, p in POOLINGS.items() if p.per_layer)
# torch allows one forward-mode level per process, whatever the thread: sessions attributing at once take turns,
# one batch of passes each
_DUAL_LEVEL = threading.Lock()
# (model identity, device): the seconds a token took through a layer in a forward-mode pass (``_work``), in the
# model's last attribution in this process
_WORK_SECONDS: dict[tuple[str, str], float] = {}
TIMING_PAIR = ("The bank raised its rates again this spring.", "We sat on the river bank and watched the water.")


@dataclass(frozen=True)
class PairAttribution:
    """``matrix`` (tokens of first, tokens of second): token i of the first text and j of the second's share of
    score - reference_score, ``first_vectors`` (tokens of first, D) @ ``second_vectors``.T, the tokens' c_i and
    d_j; ``first_tokens`` and ``second_tokens``; ``score`` the cosine of the two pooled vectors;
    ``reference_score`` the part the references account for; ``error`` = matrix.sum() - (score -
    reference_score), the integral's error; and the settings that produced it."""

    matrix: np.ndarray
    first_vectors: np.ndarray
    second_vectors: np.ndarray
    first_tokens: list[str]
    second_tokens: list[str]
    score: float
    reference_score: float
    error: float
    strategy: str
    layer: int
    at_layer: int
    steps: int
    reference: str
    cut: int  # tokens cut from the two texts together to fit ``MAX_TOKENS``
    layer_class: str  # the model's layer modules, whose calls the attribution counts

    @property
    def first_shares(self) -> np.ndarray:
        """(tokens of first,): each token's share, its row's sum (integrated gradients against the partner)."""
        return self.matrix.sum(axis=1)

    @property
    def second_shares(self) -> np.ndarray:
        return self.matrix.sum(axis=0)


def _layer_kind(model: torch.nn.Module) -> type:
    """The class of the model's transformer layers, whose k-th call takes hidden_states[k]."""
    recorded = (getattr(model, "_can_record_outputs", None) or {}).get("hidden_states")
    kind = getattr(recorded, "target_class", recorded)
    if isinstance(kind, type):
        return kind
    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList) and len(module) == model.config.num_hidden_layers:
            return type(module[0])
    raise ValueError(f"This model ({model.config.model_type}) does not show its layers in a way that attribution "
                     "can reach, so its token states cannot be attributed.")


class _LayerInput:
    """A forward pre-hook on every layer: on the call that takes hidden_states[at], it keeps that input
    (``seen``) or puts ``replace`` in its place. Layers before it run on the unbatched text once; the
    replacement's rows broadcast against their masks. It acts in the thread that made it only: the eager model
    is shared with other sessions' attention views."""

    def __init__(self, model: torch.nn.Module, at: int) -> None:
        self.at, self.calls, self.seen, self.replace = at, 0, None, None
        self.thread = threading.get_ident()
        kind = _layer_kind(model)
        self.handles = [m.register_forward_pre_hook(self, with_kwargs=True) for m in model.modules()
                        if isinstance(m, kind)]

    def __call__(self, module: torch.nn.Module, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        if threading.get_ident() != self.thread:
            return args, kwargs
        self.calls += 1
        if self.calls - 1 != self.at:
            return args, kwargs
        named = "hidden_states" if "hidden_states" in kwargs else None
        self.seen = kwargs[named] if named else args[0]
        if self.replace is not None:
            if named:
                kwargs = {**kwargs, named: self.replace}
            else:
                args = (self.replace, *args[1:])
        return args, kwargs

    def close(self) -> None:
        for handle in self.handles:
            handle.remove()


def default_at_layer(layer: int) -> int:
    """The layer whose token states are attributed when none is given: two below the pooled ``layer`` (0 = the
    embeddings). Two layers of mixing are where the integral needs few steps (8 steps: 0.1 % of the score)."""
    return max(checks.whole_number(layer, "layer", 1) - 2, 0)


def _check_settings(enc: Encoder, strategy: str, layer: int | None, at_layer: int | None, steps: int,
                    reference: str) -> tuple[str, int, int, int, str]:
    strategy = checks.choice(strategy, "pooling strategy", PAIR_STRATEGIES)
    layers = enc.info.num_layers
    layer = layers if layer is None else checks.whole_number(layer, "layer (of the pooled vectors)", 1, layers)
    at_layer = (default_at_layer(layer) if at_layer is None
                else checks.whole_number(at_layer, f"at_layer (below layer {layer})", 0, layer - 1))
    steps = checks.whole_number(steps, "steps", 1, 256)
    reference = checks.choice(reference, "reference", REFERENCES)
    if getattr(enc.tokenizer, f"{REFERENCES[reference]}_id", None) is None:
        raise ValueError(f"This model's tokenizer has no {reference} token to build the reference from; choose "
                         f"another of {', '.join(REFERENCES)}.")
    return strategy, layer, at_layer, steps, reference


def side_input(enc: Encoder, text: str, name: str, cut: bool) -> tuple[ModelInput, int]:
    """A text's input, cut to ``MAX_TOKENS`` (keeping its closing special token) when ``cut``."""
    if not checks.text(text, name).strip():
        raise ValueError(f"{name} is empty: a similarity needs a text on each side.")
    item = enc.inputs([text])[0]
    over = len(item.ids) - MAX_TOKENS
    if over <= 0:
        return item, 0
    if not cut:
        read = f"the {len(item.ids)} tokens the model reads of it" if item.dropped else f"{len(item.ids)} tokens"
        raise ValueError(f"{name} is too long to attribute: {read}. Attribution takes one forward-mode pass per "
                         f"token and step, each over the whole text, so its cost grows with the square of the "
                         f"length: {len(item.ids)} tokens cost about {(len(item.ids) / 20) ** 2:,.0f} times a 20-token "
                         f"sentence. Cut texts longer than {MAX_TOKENS} tokens to their first {MAX_TOKENS} "
                         "(cut=True), or shorten them.")
    keep = list(range(MAX_TOKENS - 1)) + [len(item.ids) - 1]
    pick = {field: [getattr(item, field)[i] for i in keep] for field in
            ("tokens", "ids", "segments", "sequences", "offsets", "word_ids", "special")}
    return ModelInput(**pick, dropped=item.dropped + over), over


class _Side:
    """One text's model inputs and its token states entering the attributed layer, for it and its reference."""

    def __init__(self, enc: Encoder, item: ModelInput, hook: _LayerInput, reference_id: int) -> None:
        self.enc, self.item, self.hook = enc, item, hook
        self.ids = torch.tensor([item.ids], device=enc.info.device)
        special = torch.tensor([item.special], device=enc.info.device)
        self.reference_ids = torch.where(special, self.ids, reference_id)
        self.mask, self.special = torch.ones_like(self.ids), special.long()
        self.states = self._states(self.ids)
        self.reference_states = self._states(self.reference_ids)

    def _states(self, ids: torch.Tensor) -> torch.Tensor:
        self.run(ids, None)
        return self.hook.seen.detach()

    def run(self, ids: torch.Tensor, states: torch.Tensor | None, strategy: str = "mean",
            layer: int = 0) -> torch.Tensor:
        """(rows, D) unit pooled vectors at ``layer`` with ``states`` (rows, T, H) put in at the hook."""
        self.hook.calls, self.hook.replace = 0, states
        extra = {"token_type_ids": torch.tensor([self.item.segments], device=ids.device)} \
            if self.enc.uses_segments else {}
        out = self.enc.eager_model()(input_ids=ids, attention_mask=self.mask, output_hidden_states=True, **extra)
        rows = 1 if states is None else len(states)
        hidden = out.hidden_states[layer].expand(rows, -1, -1)[:, None]  # (rows, 1, T, H)
        pooled = POOLINGS[strategy].fn(BatchStates(hidden, self.mask.expand(rows, -1), self.special.expand(rows, -1),
                                                   None))[:, 0].float()
        return pooled / pooled.norm(dim=-1, keepdim=True).clamp(min=1e-12)

    def shares(self, strategy: str, layer: int, steps: int, progress: Callable[[int], None]) -> torch.Tensor:
        """(T, D): each token's c_i, the Gauss-Legendre sum of forward-mode derivatives along the path."""
        nodes, weights = np.polynomial.legendre.leggauss(steps)
        delta = (self.states - self.reference_states)[0]  # (T, H)
        tokens = len(delta)
        rows = [(float((node + 1) / 2), float(weight / 2), i) for node, weight in zip(nodes, weights)
                for i in range(tokens)]
        out = torch.zeros(tokens, self.enc.info.hidden_size, dtype=torch.float32, device=delta.device)
        per_pass = max(1, CHUNK_TOKENS // tokens)  # rows of a batch: about CHUNK_TOKENS token-passes each
        for start in range(0, len(rows), per_pass):
            chunk = rows[start:start + per_pass]
            alphas = torch.tensor([a for a, _, _ in chunk], device=delta.device, dtype=delta.dtype)
            primal = self.reference_states + alphas[:, None, None] * delta  # (rows, T, H)
            tangent = torch.zeros_like(primal)
            tangent[range(len(chunk)), [i for _, _, i in chunk]] = delta[[i for _, _, i in chunk]]
            with _DUAL_LEVEL, forward_ad.dual_level():
                found = self.run(self.ids, forward_ad.make_dual(primal, tangent), strategy, layer)
                derivative = forward_ad.unpack_dual(found).tangent  # None where no derivative flows through
            if derivative is None:
                derivative = torch.zeros_like(found)
            weight = torch.tensor([w for _, w, _ in chunk], device=delta.device)[:, None]
            out.index_add_(0, torch.tensor([i for _, _, i in chunk], device=delta.device), weight * derivative)
            progress(len(chunk))
        return out


def pair_attribution(enc: Encoder, first: str, second: str, strategy: str = "mean", layer: int | None = None,
                     steps: int = DEFAULT_STEPS, reference: str = "[PAD]", at_layer: int | None = None,
                     cut: bool = False, progress: Callable[[int, int], None] | None = None) -> PairAttribution:
    """The token × token attribution of the cosine between ``first`` and ``second``'s ``strategy``-pooled
    vectors at ``layer`` (default: the last), to their token states entering layer ``at_layer + 1`` (default two
    layers below ``layer``; 0 = the embeddings), against ``reference`` texts, in ``steps`` Gauss-Legendre points
    (module docstring). ``cut``: texts over ``MAX_TOKENS`` tokens are cut to it (else ``ValueError`` with the
    cost). ``progress(done, total)`` after each forward-mode pass."""
    enc = checks.encoder(enc)
    strategy, layer, at_layer, steps, reference = _check_settings(enc, strategy, layer, at_layer, steps, reference)
    progress = checks.callback(progress)
    (item_a, cut_a), (item_b, cut_b) = side_input(enc, first, "The first text", cut), side_input(enc, second,
                                                                                      "The second text", cut)
    model = enc.eager_model()
    hook = _LayerInput(model, at_layer)
    record(f"attribution run: 2 texts, {steps} steps")
    total, done = steps * (len(item_a.ids) + len(item_b.ids)), [0]

    def advance(passes: int) -> None:
        done[0] += passes
        if progress is not None:
            progress(done[0], total)

    try:
        with torch.no_grad():
            reference_id = getattr(enc.tokenizer, f"{REFERENCES[reference]}_id")
            a, b = _Side(enc, item_a, hook, reference_id), _Side(enc, item_b, hook, reference_id)
            u_a, r_a = (a.run(a.ids, s, strategy, layer)[0] for s in (a.states, a.reference_states))
            u_b, r_b = (b.run(b.ids, s, strategy, layer)[0] for s in (b.states, b.reference_states))
            began = time.perf_counter()
            shares_a = a.shares(strategy, layer, steps, advance)
            shares_b = b.shares(strategy, layer, steps, advance)
            _WORK_SECONDS[enc.info.identity, enc.info.device] = (time.perf_counter() - began) / _work(
                enc, at_layer, steps, len(item_a.ids), len(item_b.ids))
    except (RuntimeError, NotImplementedError) as err:
        raise ValueError(f"This model ({enc.info.name}) could not be differentiated along the path: "
                         f"{str(err).splitlines()[0][:200]}") from None
    finally:
        hook.close()
    if not torch.isfinite(shares_a).all() or not torch.isfinite(shares_b).all():
        raise ValueError("The attribution gave non-finite numbers (the model overflowed along the path).")
    difference = float((u_a - r_a) @ (u_b - r_b))
    if abs(difference) > 1e-6 and not (shares_a.abs().sum() > 0 and shares_b.abs().sum() > 0):
        raise ValueError(f"No gradient reaches this model's token states ({enc.info.name}): its output does not "
                         "change with them along the path, so nothing can be attributed to its tokens.")
    vectors_a, vectors_b = shares_a.double().cpu().numpy(), shares_b.double().cpu().numpy()
    matrix = vectors_a @ vectors_b.T
    score = float(u_a @ u_b)
    return PairAttribution(matrix, vectors_a, vectors_b, list(item_a.tokens), list(item_b.tokens), score,
                           score - difference,
                           float(matrix.sum() - difference), strategy, layer, at_layer, steps, reference,
                           cut_a + cut_b, _layer_kind(model).__name__)


def expected_seconds(enc: Encoder, first: str, second: str, strategy: str = "mean", layer: int | None = None,
                     steps: int = DEFAULT_STEPS, reference: str = "[PAD]", at_layer: int | None = None,
                     cut: bool = False) -> tuple[float, int]:
    """How long ``pair_attribution`` with the same arguments is expected to take here, said before it runs: (seconds,
    forward-mode passes). Its work (``_work``) times the seconds a unit of it took this model and device in its last
    attribution, or, before any, in one of ``TIMING_PAIR`` run now (about a second on two CPU cores). ``ValueError``
    for the settings and texts, as ``pair_attribution``'s."""
    enc = checks.encoder(enc)
    strategy, layer, at_layer, steps, reference = _check_settings(enc, strategy, layer, at_layer, steps, reference)
    tokens = [len(side_input(enc, text, name, cut)[0].ids) for text, name in ((first, "The first text"),
                                                                              (second, "The second text"))]
    if (enc.info.identity, enc.info.device) not in _WORK_SECONDS:
        pair_attribution(enc, *TIMING_PAIR)  # records its own time
    return _WORK_SECONDS[enc.info.identity, enc.info.device] * _work(enc, at_layer, steps, *tokens), steps * sum(tokens)


def _work(enc: Encoder, at_layer: int, steps: int, *tokens: int) -> int:
    """An attribution's work, in tokens through a layer: a side of T tokens takes steps × T forward-mode passes of
    its whole text, each through the layers above ``at_layer`` (those below run once)."""
    return steps * sum(t * t for t in tokens) * (enc.info.num_layers - at_layer)
