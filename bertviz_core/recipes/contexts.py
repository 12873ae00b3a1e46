"""The Similar contexts recipe: the token index, nearest tokens and sentences, and the contextuality measures."""
from __future__ import annotations

from bertviz_core.model.models import ModelInfo
from bertviz_core.recipes.common import TRIM_CODE, load_lines
from bertviz_core.measures.similarity import METRIC_IMPORTS, METRICS
from bertviz_core.views.comparison import STORE_BASELINE_ROWS

BUILT_IN_CORPUS = ("from bertviz_core.corpora import reference_corpus  # the page's built-in sentences\n"
                   "texts = list(reference_corpus())\n")

# The index: each token's whole word found by its characters (a run of letters and digits), as the app finds it
# (word_vectors.word_span), so a word is the same on every tokenizer.
INDEX_CODE = (
    "def token_states(text):\n"
    "    inputs = tokenizer(text, return_tensors='pt', truncation=True, return_offsets_mapping=True)\n"
    "    offsets = [trim(text, s, e) for s, e in inputs.pop('offset_mapping')[0].tolist()]\n"
    "    with torch.no_grad():\n"
    "        states = torch.stack(model(**inputs, output_hidden_states=True).hidden_states)[:, 0]\n"
    "    return states.numpy(), inputs.sequence_ids(), offsets   # (layers+1, tokens, hidden); None: [CLS], [SEP]\n\n\n"
    "def word_at(text, start, end):\n"
    "    \"\"\"The whole word (a run of letters and digits) a token's characters fall in, the first if several;\n"
    "    a token without one (punctuation) is its own word. By characters, so the same on every tokenizer.\"\"\"\n"
    "    for m in re.finditer(r'\\w+', text):\n"
    "        if m.start() < max(end, start + 1) and m.end() > start:\n"
    "            return m.span()\n"
    "    return start, end\n\n\n"
    "index, where = [], []   # every token but [CLS]/[SEP]; where: (sentence, its whole word, word start)\n"
    "for s, text in enumerate(texts):\n"
    "    states, sequence, offsets = token_states(text)\n"
    "    keep = [i for i, part in enumerate(sequence) if part is not None]\n"
    "    index.append(states[:, keep].astype(np.float16))   # float16, as the app keeps the index\n"
    "    for i in keep:\n"
    "        start, end = word_at(text, *offsets[i])\n"
    "        where.append((s, text[start:end].lower(), start))\n"
    "index = np.concatenate(index, axis=1)   # (layers+1, corpus tokens, hidden)\n\n"
)


def sentence_vector_code(pooling_code: str, layer: int | None) -> str:
    """``sentence_vector(text)``: one text's vector by ``pooling_code`` at ``layer`` (None: a strategy without
    layers), from a model run of the text alone."""
    return ("def sentence_vector(text):\n"
            "    inputs = tokenizer(text, return_tensors='pt', truncation=True)\n"
            "    with torch.no_grad():\n"
            "        outputs = model(**inputs, output_hidden_states=True)\n"
            "    states = torch.stack(outputs.hidden_states)[:, 0]   # (layers+1, tokens, hidden)\n"
            f"    return ({pooling_code}){'' if layer is None else f'[{layer}]'}.numpy()\n\n\n")


def layer_loop(name: str, layers: tuple[int, int], candidates_line: str, query: str, metric: str, k: int) -> str:
    """A loop over ``layers`` that reads ``candidates`` (``candidates_line``), scores them against ``query`` by
    ``metric`` and keeps in ``name[layer]`` the ``k`` best of the ``allowed`` ones, best first."""
    order = "-scores" if METRICS[metric].similar_high else "scores"
    return (f"{name} = {{}}\n"
            f"for layer in {list(dict.fromkeys(layers))}:\n"
            + candidates_line
            + f"    scores = {METRICS[metric].code_between('candidates', query)}[:, 0]   # {metric}\n"
            f"    ranked = np.argsort({order}, kind='stable')\n"
            f"    {name}[layer] = ranked[allowed[ranked]][:{k}]\n")


def similar_contexts(info: ModelInfo, sentence: str, token: int, corpus_code: str, layers: tuple[int, int], k: int,
                     metric: str, word: str, pooling_code: str, sentence_layer: int | None) -> str:
    """The token index; the ``k`` corpus tokens nearest to token ``token`` of ``sentence`` at both ``layers``
    and the ``k`` nearest corpus sentences by ``pooling_code`` at ``sentence_layer`` (the corpus' copies of
    ``sentence`` left out of both, as the page does); the contextuality measures at the first layer
    (self-similarity of ``word``, intra-sentence, baseline)."""
    order = "-scores" if METRICS[metric].similar_high else "scores"
    return (
        load_lines(info)
        + f"import re\nimport numpy as np\n{METRIC_IMPORTS}\n\n{corpus_code}\n\n{TRIM_CODE}{INDEX_CODE}"
        f"sentence = {sentence!r}\n"
        "own = [s for s, text in enumerate(texts) if text.strip() == sentence.strip()]   # your sentence, left out\n"
        "allowed = np.array([s not in own for s, _, _ in where])\n"
        f"query = token_states(sentence)[0][:, {token}]   # token {token} at every layer\n"
        f"word = {word.lower()!r}\n"
        "held = sum(w == word for (_, w, _), ok in zip(where, allowed) if ok)   # its tokens outside your sentence\n"
        "shares = {}   # layer: (neighbours that are the word, neighbours, the most that can be)\n"
        + layer_loop("neighbours", layers, "    candidates = index[layer].astype(np.float32)\n",
                     "query[layer][None]", metric, k) +
        "    for i in neighbours[layer]:\n"
        "        print(layer, round(float(scores[i]), 3), where[i], texts[where[i][0]])\n"
        "    listed = len(neighbours[layer])\n"
        "    shares[layer] = (sum(where[i][1] == word for i in neighbours[layer]), listed, min(listed, held))\n"
        "    print(layer, '%d of %d are %r, at most %d' % (*shares[layer][:2], word, shares[layer][2]))\n\n"
        "# Nearest sentences: one vector per sentence, as on the Sentence pooling page\n"
        + sentence_vector_code(pooling_code, sentence_layer) +
        "corpus_vectors = np.stack([sentence_vector(text) for text in texts])\n"
        f"scores = {METRICS[metric].code_between('corpus_vectors', 'sentence_vector(sentence)[None]')}[:, 0]\n"
        f"nearest_sentences = [s for s in np.argsort({order}, kind='stable') if s not in own][:{k}]\n\n"
        f"candidates = index[{layers[0]}].astype(np.float32)   # the measures at layer {layers[0]}\n"
        "# How contextual the layer is (Ethayarajh 2019); cosines of unit vectors\n"
        "unit = lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)\n"
        "occurrences = {}   # the word's occurrences: a word of several pieces is the mean of its pieces\n"
        "for i, (s, w, start) in enumerate(where):\n"
        "    if w == word:\n"
        "        occurrences.setdefault((s, start), []).append(i)\n"
        "sentence_of = np.array([s for s, _ in occurrences])\n"
        "if len(set(sentence_of)) >= 2:   # self-similarity needs the word in two sentences or more\n"
        "    vectors = unit(np.stack([candidates[ids].mean(0) for ids in occurrences.values()]))\n"
        "    apart = sentence_of[:, None] != sentence_of[None, :]   # pairs from different sentences\n"
        "    print('self-similarity', (vectors @ vectors.T)[apart].mean())\n"
        "sentence_ids = np.array([s for s, _, _ in where])\n"
        "intra_sentence = np.mean([(unit(candidates[sentence_ids == s]) @ unit(candidates[sentence_ids == s].mean(0)))"
        ".mean()\n"
        "                          for s in np.unique(sentence_ids) if (sentence_ids == s).sum() >= 2])\n"
        "rng = np.random.default_rng(0)   # the baseline: 2,000 random token pairs from different sentences\n"
        "first, second = np.empty(0, dtype=int), np.empty(0, dtype=int)\n"
        "while len(first) < 2000:\n"
        "    a, b = rng.integers(0, len(where), size=(2, 2000))\n"
        "    keep = sentence_ids[a] != sentence_ids[b]\n"
        "    first, second = np.r_[first, a[keep]][:2000], np.r_[second, b[keep]][:2000]\n"
        "baseline = (unit(candidates[first]) * unit(candidates[second])).sum(1).mean()\n"
        "print(intra_sentence, baseline, intra_sentence - baseline)   # and self-similarity minus the baseline\n"
    )


def store_sentences(info: ModelInfo, folder: str, column: str, sentence: str, pooling_code: str, layer: int | None,
                    k: int, metric: str, against_random_pairs: bool = False) -> str:
    """The ``k`` sentences of the precomputed store in ``folder`` nearest to ``sentence`` by exact search over its
    ``column`` vectors (e.g. "mean@6"), with ``pooling_code`` at ``layer`` for the query, the store's copies of
    ``sentence`` left out, as the page does. A page on an indexed store finds them approximately (it says the
    recall); this is the exact answer. ``against_random_pairs``: each score's share of the store's own random
    pairs below it, and their band (``comparison.store_baseline``)."""
    order = "-scores" if METRICS[metric].similar_high else "scores"
    baseline = "" if not against_random_pairs else (
        f"\n# What unrelated stored texts score: every pair of up to {STORE_BASELINE_ROWS} stored rows drawn at random\n"
        f"pick = np.sort(np.random.default_rng(0).permutation(len(vectors))[:{STORE_BASELINE_ROWS}])\n"
        "sample = np.asarray(vectors[pick])   # (drawn texts, hidden)\n"
        f"pairs = ({METRICS[metric].code_between('sample', 'sample')})[np.triu_indices(len(pick), k=1)]\n"
        "print('random pairs: 5th percentile, median, 95th', np.percentile(pairs, [5, 50, 95]))\n"
        "for s in nearest:\n"
        "    print(round(float(scores[s]), 3), 'above this share of random pairs:', (pairs < scores[s]).mean())\n")
    return (
        load_lines(info)
        + f"import numpy as np\nimport pandas as pd\n{METRIC_IMPORTS}\n\n"
        f"store = {folder!r}   # made by: python -m bertviz_core precompute (see its manifest.json)\n"
        f"vectors = np.load(store + '/vectors/{column}.npy', mmap_mode='r')   # (rows, hidden), read from disk\n"
        "texts = pd.read_parquet(store + '/rows.parquet')['text'].tolist()\n\n\n"
        "# The query: the only model run\n"
        + sentence_vector_code(pooling_code, layer) +
        f"sentence = {sentence!r}\n"
        "own = {s for s, text in enumerate(texts) if text.strip() == sentence.strip()}   # your sentence, left out\n"
        f"scores = {METRICS[metric].code_between('vectors', 'sentence_vector(sentence)[None]')}[:, 0]   # {metric}\n"
        "# exact search; a page on an indexed store may search through its index (it shows the recall) and miss one\n"
        f"nearest = [s for s in np.argsort({order}, kind='stable') if s not in own][:{k}]\n"
        "for s in nearest:\n"
        "    print(round(float(scores[s]), 3), texts[s])\n"
        + baseline
    )


def store_tokens(info: ModelInfo, folder: str, sentence: str, token: int, layers: tuple[int, int], k: int,
                 metric: str) -> str:
    """The ``k`` stored tokens nearest to token ``token`` of ``sentence`` at both stored token ``layers``, by exact
    search over the store's token vectors, the tokens of the sentence's stored copies left out, as the page does."""
    return (
        load_lines(info)
        + f"import numpy as np\nimport pandas as pd\n{METRIC_IMPORTS}\n\n"
        f"store = {folder!r}   # made by: python -m bertviz_core precompute --token-layers ...\n"
        "texts = pd.read_parquet(store + '/rows.parquet')['text'].tolist()\n"
        "where = pd.read_parquet(store + '/tokens/rows')   # one row per stored token: sentence, token, start, end\n\n"
        f"sentence = {sentence!r}\n"
        "inputs = tokenizer(sentence, return_tensors='pt', truncation=True)\n"
        "with torch.no_grad():   # the only model run\n"
        "    states = torch.stack(model(**inputs, output_hidden_states=True).hidden_states)[:, 0].numpy()\n"
        "own = {s for s, text in enumerate(texts) if text.strip() == sentence.strip()}   # your sentence, left out\n"
        "allowed = ~where['sentence'].isin(own).to_numpy()\n"
        + "# exact search; a page on an indexed store may search through its index (it shows the recall) and miss one\n"
        + layer_loop("nearest", layers, "    candidates = np.load(f'{store}/tokens/{layer}.npy', mmap_mode='r')   "
                     "# (stored tokens, hidden)\n", f"states[layer, {token}][None]", metric, k) +
        "    for i in nearest[layer]:\n"
        "        s, start, end = where.loc[i, ['sentence', 'start', 'end']]\n"
        "        print(layer, round(float(scores[i]), 3), texts[s][:start] + '«' + texts[s][start:end] + '»' + "
        "texts[s][end:])\n"
    )
