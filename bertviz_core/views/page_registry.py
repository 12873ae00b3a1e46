"""The registry of the app's pages: file, title, icon, and the question each answers.

app.py's navigation, the overview's table, docs/screenshots.py and the benchmarks read it. A new
page is a page file, one entry here, and its test. The first entry is the home page.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PageEntry:
    """One page: ``file`` relative to the project root, e.g. "pages/tokenization.py". ``token_budget``: the most
    tokens an upload on the page may hold (see ``lengths.token_budget``), None for a page that takes none.
    ``warm_up``: the steps of the background warm-up (``ui.warm.WARM_STEPS``) that compute its default view.
    ``built_in_corpus``: for a page that takes a corpus, its own (a key of ``corpus_sources.BUILT_IN_CORPORA``);
    it then offers every source of ``corpus_sources.CORPUS_SOURCES``, a precomputed store only when it
    ``reads_stores``."""

    file: str
    title: str
    icon: str
    question: str
    token_budget: int | None = None
    warm_up: tuple[str, ...] = ()  # what the default view needs, named from ui.warm.WARM_STEPS
    built_in_corpus: str | None = None
    reads_stores: bool = False

    @property
    def url_path(self) -> str:
        """The page's path in the app's URLs: its file's stem, "" for the home page."""
        return "" if self is PAGES[0] else Path(self.file).stem


# Token budgets of uploads, for two CPU cores and the bundled model. A token index keeps every token at every
# layer (about 5 KB a token, float16): 200,000 tokens make a 1 GB index, built in about 40 s (bench-index built
# 80,781 tokens in 15 s). Pooling keeps one vector per text and strategy, so its cost is the model run: 400,000
# tokens take about a minute (bench-throughput: ~6,400 tokens/s).
INDEX_TOKENS = 200_000
POOLED_TOKENS = 400_000

PAGES: tuple[PageEntry, ...] = (
    PageEntry("pages/overview.py", "Overview", "🏠", "What does this explorer show, and where do I start?"),
    PageEntry("pages/tokenization.py", "Tokenization", "🧩",
              "How does text become WordPiece tokens, IDs, segments and an attention mask?"),
    PageEntry("pages/layer_values.py", "Layer values", "📊",
              "How are the hidden-state values distributed in each layer, and which dimensions are outliers?",
              warm_up=("tutorial sentence encoded",)),
    PageEntry("pages/attention.py", "Attention", "🔦",
              "Which tokens does each head of each layer look at: [CLS], [SEP], the previous word, itself? "
              "Measured for every head, with rollout beside raw attention"),
    PageEntry("pages/masked_words.py", "Masked words", "🎭",
              "What was BERT trained to guess for “The man went to the [MASK] to buy milk.”, and after which layer "
              "does it know the word? Guesses and the logit lens"),
    PageEntry("pages/word_similarity.py", "Word in context", "🏦",
              'How different is "bank" in "bank vault" and "river bank", at each layer, and which layer tells '
              "senses apart best?", warm_up=("first word preset encoded",)),
    PageEntry("pages/similar_contexts.py", "Similar contexts", "🔭",
              'Where else in a corpus does the model put "bank", at layer 1 and at the last layer, and how '
              "contextual is each layer? Neighbour search, semantic search and self-similarity",
              token_budget=INDEX_TOKENS, warm_up=("tutorial sentence encoded", "reference corpus indexed",
                                                  "reference corpus pooled", "tutorial sentence pooled",
                                                  "reference corpus contextuality"),
              built_in_corpus="reference sentences", reads_stores=True),
    PageEntry("pages/sentence_pooling.py", "Sentence pooling", "🧭",
              'Which vector is "the sentence embedding": [CLS], pooler, mean or max, and from which layer? '
              "Measured by class separation", token_budget=POOLED_TOKENS,
              warm_up=("news corpus pooled", "pooling grid"), built_in_corpus="news topics", reads_stores=True),
    PageEntry("pages/task_measures.py", "Task measures", "🎯",
              "Which layer and which pooling for my task? A classification probe beside the silhouette, the "
              "Spearman correlation with gold pair scores, and PCA, t-SNE and UMAP maps that say how faithful they "
              "are", token_budget=POOLED_TOKENS,
              warm_up=("news corpus pooled", "pooling grid", "probe grid"), built_in_corpus="news topics",
              reads_stores=True),
    PageEntry("pages/compare_sentences.py", "Compare sentences", "⚖️",
              'Why can "what is your age?" and "Today is monday" score 0.93 (bert-base-uncased, in a Q&A thread), '
              "and what does the loaded model give? Ranking, a random-pair baseline, centering and whitening",
              warm_up=("news corpus pooled",), reads_stores=True),
    PageEntry("pages/compare_models.py", "Compare models", "🪞",
              "Which layers of two models represent the same texts alike? The bundled model against its untrained "
              "twin shows what pre-training built: CKA and RSA of every layer pair, and the same texts side by side",
              token_budget=POOLED_TOKENS, warm_up=("news corpus pooled",), built_in_corpus="news topics"),
    PageEntry("pages/why_similar.py", "Why similar", "🔗",
              "Why are two sentences similar? The cosine of their vectors split into token × token shares "
              "(integrated Jacobians), and each token's most alike token in the other sentence",
              warm_up=("default pair attributed",)),
    PageEntry("pages/which_model.py", "Which model?", "🏁",
              "Which model, which layer and which pooling for my data? Up to four models ranked on one corpus by a "
              "probe, the silhouette or Spearman's ρ, each cell with its 95 % interval, and each model's cost",
              token_budget=POOLED_TOKENS, warm_up=("news corpus pooled", "probe grid"),
              built_in_corpus="news topics"),
)


def page(url_path: str) -> PageEntry:
    """The entry whose URL path is ``url_path``; ValueError naming the known ones otherwise."""
    for entry in PAGES:
        if entry.url_path == url_path:
            return entry
    raise ValueError(f"No page at '{url_path}'. Pages: {', '.join(e.url_path or '(home)' for e in PAGES)}.")
