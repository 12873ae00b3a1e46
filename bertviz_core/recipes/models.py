"""Compare models: two models' layers against each other by CKA, as the page computes them, in plain transformers
and numpy; Which model: models × pooling × layer scored on one corpus, with each model's best cell."""
from __future__ import annotations

import textwrap

from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.measures.similarity import SILHOUETTE_SAMPLE
from bertviz_core.measures.task_measures import NO_ORDER, PROBE_CODE
from bertviz_core.model.models import ModelInfo
from bertviz_core.recipes.common import TRIM_CODE, load_lines
from bertviz_core.recipes.sentences import correction_lines

LINEAR_CKA_CODE = '''def cka(x, y):
    """Linear CKA (Kornblith et al. 2019) of x (n, d1) and y (n, d2), the same n texts."""
    x, y = x - x.mean(0), y - y.mean(0)
    return np.linalg.norm(y.T @ x) ** 2 / (np.linalg.norm(x.T @ x) * np.linalg.norm(y.T @ y))
'''
DEBIASED_CKA_CODE = '''def hsic1(k, l):
    """HSIC's unbiased estimator (Song et al. 2012) of two (n, n) kernels."""
    n, ones = len(k), np.ones(len(k))
    k, l = k - np.diag(np.diag(k)), l - np.diag(np.diag(l))
    return (np.trace(k @ l) + (ones @ k @ ones) * (ones @ l @ ones) / ((n - 1) * (n - 2))
            - 2 / (n - 2) * (ones @ k @ l @ ones)) / (n * (n - 3))


def cka(x, y):
    """Debiased linear CKA (Nguyen, Raghu & Kornblith 2021) of x (n, d1) and y (n, d2), the same n texts."""
    k, l = x @ x.T, y @ y.T
    return hsic1(k, l) / np.sqrt(hsic1(k, k) * hsic1(l, l))
'''


# what the app leaves blank, and why
CONSTANT_NOTE = ("# A layer that gives every text the same vector (e.g. [CLS] at layer 0) has no CKA: the app leaves\n"
                 "# its cells blank, where this prints NaN or rounding noise.\n")


def _loader(name: str, info: ModelInfo) -> str:
    return f"def {name}():\n" + textwrap.indent(load_lines(info), "    ") + "    return tokenizer, model\n\n\n"


def compare_models(first: ModelInfo, second: ModelInfo, texts_code: str, pooling_code: str, debiased: bool) -> str:
    """Each model's pooled vector of every text at every layer (``pooling_code`` on one text's ``states``,
    (layers+1, tokens, hidden)), then the CKA of every layer of A against every layer of B."""
    return (
        "import numpy as np\nimport torch\n\n\n" + _loader("load_a", first) + _loader("load_b", second)
        + "def layer_vectors(tokenizer, model, texts):\n"
        "    \"\"\"(texts, layers+1, hidden): each text's vector at every layer.\"\"\"\n"
        "    vectors = []\n"
        "    for text in texts:\n"
        "        inputs = tokenizer(text, return_tensors='pt', truncation=True)\n"
        "        with torch.no_grad():\n"
        "            states = torch.stack(model(**inputs, output_hidden_states=True).hidden_states)[:, 0]\n"
        f"        vectors.append(({pooling_code}).numpy())\n"
        "    return np.stack(vectors).astype(np.float64)\n\n\n"
        + (DEBIASED_CKA_CODE if debiased else LINEAR_CKA_CODE) + "\n\n" + texts_code
        + "a, b = layer_vectors(*load_a(), texts), layer_vectors(*load_b(), texts)\n"
        "matrix = np.array([[cka(a[:, i], b[:, j]) for j in range(b.shape[1])] for i in range(a.shape[1])])\n"
        "print(matrix.round(2))   # rows: model A's layers 0, 1, …; columns: model B's\n"
        + CONSTANT_NOTE
    )


WORD_UNITS_CODE = '''WORD = re.compile(r"\\w+(?:['’]\\w+)*")  # letters and digits, apostrophes inside ("don't")


def units(text, tokenizers):
    """The text's words as each model's piece positions: words that share a piece of either model are one unit,
    and a unit either model truncated is left out."""
    spans = [m.span() for m in WORD.finditer(text)]
    owned, limits = [], []
    for tokenizer in tokenizers:
        enc = tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True, truncation=True)
        cut = len(tokenizer(text)["input_ids"]) > len(enc["input_ids"])
        words, ends = [[] for _ in spans], []
        for position, (span, special) in enumerate(zip(enc["offset_mapping"], enc["special_tokens_mask"])):
            start, end = trim(text, *span)
            if special:
                continue
            ends.append(end)
            for k, (s, e) in enumerate(spans):
                if end > start and s < end and e > start:
                    words[k].append(position)
        owned.append(words)
        limits.append(max(ends, default=0) if cut else len(text))
    joined = [False] * len(spans)  # word k and word k + 1 share a piece
    for words in owned:
        first = {}
        for k, positions in enumerate(words):
            for position in positions:
                start = first.setdefault(position, k)
                joined[start:k] = [True] * (k - start)
    found, k = [], 0
    while k < len(spans):
        last = k
        while joined[last]:
            last += 1
        pieces = [sorted({p for w in range(k, last + 1) for p in words[w]}) for words in owned]
        if all(pieces) and spans[last][1] <= min(limits):
            found.append(pieces)
        k = last + 1
    return found


def word_vectors(tokenizer, model, text, positions):
    """(layers+1, hidden) for each unit: the mean of its pieces' hidden states."""
    inputs = tokenizer(text, return_tensors='pt', truncation=True)
    with torch.no_grad():
        states = torch.stack(model(**inputs, output_hidden_states=True).hidden_states)[:, 0]
    return [states[:, p].mean(1).numpy() for p in positions]


'''


def compare_models_words(first: ModelInfo, second: ModelInfo, texts_code: str, debiased: bool, max_units: int) -> str:
    """Both models' word vectors, aligned through character offsets as ``word_alignment`` aligns them, from the
    first texts up to ``max_units`` words; then the CKA of every layer of A against every layer of B."""
    return (
        "import re\n\nimport numpy as np\nimport torch\n\n\n" + _loader("load_a", first) + _loader("load_b", second)
        + TRIM_CODE + WORD_UNITS_CODE + (DEBIASED_CKA_CODE if debiased else LINEAR_CKA_CODE) + "\n\n" + texts_code
        + "(tok_a, model_a), (tok_b, model_b) = load_a(), load_b()\na, b = [], []\nfor text in texts:\n"
        f"    if len(a) >= {max_units}:\n        break\n"
        "    found = units(text, (tok_a, tok_b))\n"
        "    a += word_vectors(tok_a, model_a, text, [pieces[0] for pieces in found])\n"
        "    b += word_vectors(tok_b, model_b, text, [pieces[1] for pieces in found])\n"
        "a, b = np.stack(a).astype(np.float64), np.stack(b).astype(np.float64)   # (words, layers+1, hidden)\n"
        "matrix = np.array([[cka(a[:, i], b[:, j]) for j in range(b.shape[1])] for i in range(a.shape[1])])\n"
        "print(matrix.round(2))   # rows: model A's layers 0, 1, …; columns: model B's\n"
        + CONSTANT_NOTE
    )


def which_model(models: dict[str, tuple[ModelInfo, list[tuple[str, int]]]], corpus_code: str, measure: str,
                folds: int, correction: str = "none") -> str:
    """The Which model leaderboard: for each model (name: its info and its (strategy, layer) cells), the pooled
    vectors of every cell, each scored by ``measure`` ("accuracy" or "macro-F1": the stated probe with the same
    ``folds`` folds for every cell; "silhouette": cosine, on the sample the app scores larger corpora on;
    "spearman": of each pair's cosine, after ``correction``, with its gold score), and each model's best cell.
    ``corpus_code`` defines ``texts`` and ``labels``, or for "spearman" ``pairs`` (sentence1, sentence2, score)."""
    strategies = sorted({strategy for _, cells in models.values() for strategy, _ in cells})
    pooled = ", ".join(f"{s!r}: {POOLINGS[s].code}" for s in strategies)
    loaders = "".join(_loader(f"load_{i}", info) for i, (info, _) in enumerate(models.values()))
    runs = "".join(f"    ({name!r}, load_{i}, {cells!r}),\n" for i, (name, (_, cells)) in enumerate(models.items()))
    if measure == "spearman":
        score = ("from scipy.stats import spearmanr\n\n"
                 "texts = list(dict.fromkeys([*pairs['sentence1'], *pairs['sentence2']]))   # each sentence once\n"
                 "row = {text: i for i, text in enumerate(texts)}\n"
                 "first_rows, second_rows = [row[t] for t in pairs['sentence1']], [row[t] for t in pairs['sentence2']]"
                 "\n\ndef score(x):\n"
                 "    if (x == x[0]).all():   # one vector for every text: no order to correlate, not defined\n"
                 "        return float('nan')\n"
                 "    first, second, reference = x[first_rows], x[second_rows], x   # a correction is fitted on x\n"
                 + textwrap.indent(correction_lines(correction), "    ")
                 + "    cosines = (first * second).sum(1) / (np.linalg.norm(first, axis=1) * np.linalg.norm(second, "
                 "axis=1))\n"
                 "    return spearmanr(cosines, pairs['score']).statistic if np.ptp(cosines) > 0 else float('nan')\n")
    elif measure == "silhouette":
        score = ("from sklearn.metrics import silhouette_score\n\n"
                 f"def score(x):   # cosine; a corpus over {SILHOUETTE_SAMPLE:,} texts is scored on a fixed sample\n"
                 f"    sample = {SILHOUETTE_SAMPLE} if len(x) > {SILHOUETTE_SAMPLE} else None\n"
                 "    return silhouette_score(x, labels, metric='cosine', sample_size=sample, random_state=0)\n")
    else:
        scoring = "accuracy" if measure == "accuracy" else "f1_macro"
        score = (PROBE_CODE + "\n"
                 "keep = [labels.count(label) >= 2 for label in labels]   # a class of one text is left out: it "
                 "cannot be both trained on and tested\n"
                 "texts, labels = [t for t, k in zip(texts, keep) if k], [lab for lab, k in zip(labels, keep) if k]\n"
                 f"folds = StratifiedKFold({folds}, shuffle=True, random_state=0)   # the same folds for every cell\n\n"
                 "def score(x):\n"
                 "    probe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))\n"
                 f"    return cross_validate(probe, x, labels, cv=folds, scoring={scoring!r})['test_score'].mean()\n")
    return (
        "import numpy as np\nimport torch\n\n\n" + loaders
        + "def cell_vectors(tokenizer, model, texts, cells):\n"
        "    \"\"\"{(strategy, layer): (texts, hidden)} for the given cells.\"\"\"\n"
        "    found = {cell: [] for cell in cells}\n"
        "    for text in texts:\n"
        "        inputs = tokenizer(text, return_tensors='pt', truncation=True)\n"
        "        with torch.no_grad():\n"
        "            outputs = model(**inputs, output_hidden_states=True)\n"
        "        states = torch.stack(outputs.hidden_states)[:, 0]   # (layers+1, tokens, hidden)\n"
        f"        pooled = {{{pooled}}}   # (layers+1, hidden), or (hidden,) for a strategy without layers\n"
        "        for strategy, layer in cells:\n"
        "            vector = pooled[strategy][layer] if pooled[strategy].dim() == 2 else pooled[strategy]\n"
        "            found[(strategy, layer)].append(vector.numpy())\n"
        "    return {cell: np.stack(v).astype(np.float64) for cell, v in found.items()}\n\n\n"
        + corpus_code + score + "\n"
        f"undefined = {NO_ORDER if measure == 'spearman' else 'its score is not a number for these vectors'!r}\n"
        "scores = {}   # (model, strategy, layer): score\n"
        "for name, load, cells in [\n" + runs + "]:\n"
        "    for (strategy, layer), x in cell_vectors(*load(), texts, cells).items():\n"
        "        scores[(name, strategy, layer)] = score(x)\n"
        "for (name, strategy, layer), value in scores.items():\n"
        "    if np.isnan(value):   # never a best\n"
        "        print(f'{name}: {strategy} at layer {layer} is not defined: {undefined}')\n"
        "leaderboard = {}   # each model's best cell\n"
        "for (name, strategy, layer), value in sorted(scores.items(), key=lambda item: -item[1]):\n"
        "    if not np.isnan(value):\n"
        "        leaderboard.setdefault(name, (strategy, layer, value))\n"
        "for name, (strategy, layer, value) in leaderboard.items():\n"
        f"    print(f'{{name}}: {{strategy}} at layer {{layer}}, {measure} {{value:.3f}}')\n"
    )
