"""Recipes for the views of one text: its tokens, its hidden states, one token's values, attention, and one
word across texts."""
from __future__ import annotations

from bertviz_core.model.models import ModelInfo
from bertviz_core.recipes.common import TRIM_CODE, load_lines
from bertviz_core.measures.similarity import METRIC_IMPORTS, METRICS


def tokenization(info: ModelInfo, text: str, text_pair: str | None, pad_to: int | None) -> str:
    """Tokens, ids, segments and mask for one text (or pair), optionally padded to ``pad_to``."""
    padding = f', padding="max_length", max_length={pad_to}' if pad_to else ""
    return (
        load_lines(info)
        + f"\nencoded = tokenizer({text!r}, {text_pair!r}, truncation=True{padding})\n"
        "tokens = tokenizer.convert_ids_to_tokens(encoded['input_ids'])\n"
        "# Segments count only where the model has segment embeddings (type_vocab_size 2 or more) and its\n"
        "# tokenizer gives token_type_ids; otherwise the model sees segment 0 for every token.\n"
        "uses_segments = (getattr(model.config, 'type_vocab_size', 0) or 0) >= 2 and 'token_type_ids' in encoded\n"
        "segments = encoded['token_type_ids'] if uses_segments else [0] * len(tokens)\n"
        "for position, token in enumerate(tokens):\n"
        "    print(position, token, encoded['input_ids'][position],\n"
        "          segments[position], encoded['attention_mask'][position])\n"
    )


def hidden_states(info: ModelInfo, text: str) -> str:
    """All hidden states of one text as a (layers+1, tokens, hidden) tensor."""
    return (
        load_lines(info)
        + f"\ninputs = tokenizer({text!r}, return_tensors='pt', truncation=True)\n"
        "with torch.no_grad():\n"
        "    outputs = model(**inputs, output_hidden_states=True)\n"
        f"# {info.num_layers + 1} = the embedding layer's output + {info.num_layers} transformer layers\n"
        "states = torch.stack(outputs.hidden_states)[:, 0]   # (layers+1, tokens, hidden)\n"
    )


def layer_values(info: ModelInfo, text: str, token: int, layer: int) -> str:
    """The histogram and statistics of one token's vector at one layer."""
    return (
        hidden_states(info, text)
        + f"\nvector = states[{layer}, {token}].numpy()        # token {token} at layer {layer}\n"
        "counts, edges = np.histogram(vector, bins=200)\n"
        "print(vector.min(), vector.max(), vector.mean(), vector.std(), np.linalg.norm(vector))\n"
        "# per layer, all tokens: values = states.reshape(len(states), -1).numpy()\n"
        "# scipy.stats.kurtosis(values, axis=1); np.linalg.norm(states, dim=2).mean(1)\n"
    ).replace("import torch\n", "import numpy as np\nimport torch\n", 1)


def word_similarity(info: ModelInfo, texts: list[str], word: str, strategy_code: str, merge_code: str,
                    metric: str = "cosine") -> str:
    """Every occurrence of ``word`` as one vector (pieces merged, layers combined), then the ``metric`` matrix.
    A word's pieces are the tokens whose characters, spaces trimmed, lie inside the word."""
    return (
        load_lines(info)
        + f"import re\nimport numpy as np\n{METRIC_IMPORTS}\n\n\n{TRIM_CODE}texts = {texts!r}\nvectors = []\n"
        "for text in texts:\n"
        "    inputs = tokenizer(text, return_tensors='pt', truncation=True, return_offsets_mapping=True)\n"
        "    offsets = [trim(text, s, e) for s, e in inputs.pop('offset_mapping')[0].tolist()]\n"
        "    with torch.no_grad():\n"
        "        hidden = torch.stack(model(**inputs, output_hidden_states=True).hidden_states)[:, 0]\n"
        f"    for m in re.finditer(r'(?<!\\w)' + re.escape({word!r}) + r'(?!\\w)', text, re.IGNORECASE):\n"
        "        ids = [i for i, (s, e) in enumerate(offsets) if e > s and s >= m.start() and e <= m.end()]\n"
        "        pieces = hidden[:, ids]                    # (layers+1, pieces, hidden)\n"
        f"        states = {merge_code}                   # (layers+1, hidden)\n"
        f"        vectors.append(({strategy_code}).numpy())\n"
        f"vectors = np.stack(vectors)\nmatrix = {METRICS[metric].code}   # {metric}\nprint(matrix.round(3))\n"
    )


def attention(info: ModelInfo, text: str, text_pair: str | None, layer: int, heads: list[int], token: int) -> str:
    """The weights of one layer's heads (their mean when several), a head statistic, and rollout.

    ``layer`` and ``heads`` are 1-based, as the page labels them; ``token`` is a token position.
    """
    pick = f"attn[{layer - 1}, {heads[0] - 1}]" if len(heads) == 1 else \
        f"attn[{layer - 1}, {[h - 1 for h in heads]}].mean(0)"
    return (
        load_lines(info, attention=True)
        + f"\ninputs = tokenizer({text!r}, {text_pair!r}, return_tensors='pt', truncation=True)\n"
        "with torch.no_grad():\n"
        "    outputs = model(**inputs, output_attentions=True)\n"
        "attn = torch.stack(outputs.attentions)[:, 0]   # (layers, heads, tokens, tokens); rows sum to 1\n"
        f"weights = {pick}   # the head view: row = query token, column = key token\n"
        "tokens = tokenizer.convert_ids_to_tokens(inputs['input_ids'][0])\n"
        "cls_share = attn[..., 0].mean(-1)              # (layers, heads): attention paid to the first token, [CLS]\n"
        "entropy = -(attn * attn.clamp_min(1e-30).log()).sum(-1).mean(-1)   # nats\n"
        "# rollout: A = mean over heads, 0.5 A + 0.5 I with rows renormalised, multiplied layer after layer\n"
        "flow = 0.5 * attn.mean(1) + 0.5 * torch.eye(attn.shape[-1])\n"
        "flow = flow / flow.sum(-1, keepdim=True)\n"
        "rollout = [flow[0]]\n"
        "for layer_flow in flow[1:]:\n"
        "    rollout.append(layer_flow @ rollout[-1])\n"
        f"from_token = torch.stack(rollout)[:, {token}]   # (layers, tokens): where token {token}'s content came from\n"
    )
