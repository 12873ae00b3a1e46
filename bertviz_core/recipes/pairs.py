"""Why similar: the token × token attribution of two texts' cosine (integrated Jacobians), as the page computes it,
in plain transformers and torch's forward-mode derivatives."""
from __future__ import annotations

from bertviz_core.model.models import ModelInfo
from bertviz_core.recipes.common import load_lines

PAIR_CODE = '''
LAYERS = [m for m in model.modules() if type(m).__name__ == {layer_class!r}]  # their k-th call takes hidden_states[k]
hook = {{"calls": 0, "seen": None, "put": None}}


def layer_input(module, args, kwargs):
    """On the layer call that takes hidden_states[AT]: keep that input, or put hook["put"] in its place."""
    hook["calls"] += 1
    if hook["calls"] - 1 == AT:
        hook["seen"] = kwargs["hidden_states"] if "hidden_states" in kwargs else args[0]
        if hook["put"] is not None:
            if "hidden_states" in kwargs:
                kwargs = {{**kwargs, "hidden_states": hook["put"]}}
            else:
                args = (hook["put"], *args[1:])
    return args, kwargs


for layer_module in LAYERS:
    layer_module.register_forward_pre_hook(layer_input, with_kwargs=True)


def unit_vectors(inputs, states=None):
    """(rows, hidden): the pooled vector at LAYER, length 1, with ``states`` (rows, tokens, hidden) put in."""
    hook.update(calls=0, put=states)
    hidden = model(**inputs, output_hidden_states=True).hidden_states
    rows = 1 if states is None else len(states)
    vectors = []
    for row in range(rows):
        states_row = torch.stack([h.expand(rows, -1, -1)[row] for h in hidden])  # (layers+1, tokens, hidden)
        vectors.append(pool(states_row)[LAYER])
    vectors = torch.stack(vectors)
    return vectors / vectors.norm(dim=-1, keepdim=True)


def pool(states):
    return {pooling_code}


def token_vectors(text):
    """(tokens, hidden): each token's c_i, the integral of the derivative along the path from the reference."""
    inputs = tokenizer(text, return_tensors="pt", truncation=True)
    if CUT and inputs["input_ids"].shape[1] > CUT:  # the page's cut: the first CUT - 1 tokens and the last ([SEP])
        keep = list(range(CUT - 1)) + [inputs["input_ids"].shape[1] - 1]
        inputs = {{name: values[:, keep] for name, values in inputs.items()}}
    ids = inputs["input_ids"]
    special = torch.tensor(tokenizer.get_special_tokens_mask(ids[0].tolist(), already_has_special_tokens=True))
    reference = {{**inputs, "input_ids": torch.where(special.bool(), ids, tokenizer.{reference_attribute}_id)}}
    with torch.no_grad():
        unit_vectors(inputs)
        x = hook["seen"]
        unit_vectors(reference)
        r = hook["seen"]
        tokens = x.shape[1]
        nodes, weights = np.polynomial.legendre.leggauss(STEPS)  # Gauss-Legendre on [-1, 1], moved to [0, 1]
        c = torch.zeros(tokens, model.config.hidden_size)
        for node, weight in zip((nodes + 1) / 2, weights / 2):
            primal = (r + float(node) * (x - r)).expand(tokens, -1, -1).clone()  # one row per token
            tangent = torch.zeros_like(primal)
            for i in range(tokens):
                tangent[i, i] = (x - r)[0, i]  # row i moves token i only
            with fwAD.dual_level():
                derivative = fwAD.unpack_dual(unit_vectors(inputs, fwAD.make_dual(primal, tangent))).tangent
            c += float(weight) * derivative
        return c, unit_vectors(inputs)[0], unit_vectors(inputs, r)[0]


c_a, u_a, r_a = token_vectors(first)
c_b, u_b, r_b = token_vectors(second)
matrix = (c_a @ c_b.T).numpy()                        # (tokens of first, tokens of second)
score = float(u_a @ u_b)                              # the cosine of the two pooled vectors
reference_score = score - float((u_a - r_a) @ (u_b - r_b))
print("cosine", round(score, 4), "= references", round(reference_score, 4), "+ token pairs", round(matrix.sum(), 4),
      "(error", round(matrix.sum() - (score - reference_score), 5), ")")
'''


def pair_attribution(info: ModelInfo, first: str, second: str, pooling_code: str, layer: int, at_layer: int,
                     steps: int, reference_attribute: str, layer_class: str, cut: int | None = None) -> str:
    """The attribution ``attribution.pair_attribution`` computes, written out: ``pooling_code`` on one text's
    ``states`` (layers+1, tokens, hidden), pooled at ``layer``, attributed to the token states entering layer
    ``at_layer + 1`` (the layers are the model's ``layer_class`` modules), against a reference of the tokenizer's
    ``reference_attribute`` token ("pad_token"), in ``steps`` Gauss-Legendre points; ``cut``: texts longer than
    this many tokens keep their first ``cut - 1`` and their last, as ``attribution.side_input`` cuts them."""
    return (
        load_lines(info, attention=True)
        + "import numpy as np\nimport torch.autograd.forward_ad as fwAD  # forward-mode derivatives\n\n"
        f"first, second = {first!r}, {second!r}\n"
        f"LAYER, AT, STEPS = {layer}, {at_layer}, {steps}  # pooled at LAYER; attributed to hidden_states[AT]\n"
        f"CUT = {cut}  # a text longer than this many tokens is cut to it (None: only the model's own length)\n"
        + PAIR_CODE.format(layer_class=layer_class, pooling_code=pooling_code, reference_attribute=reference_attribute)
    )
