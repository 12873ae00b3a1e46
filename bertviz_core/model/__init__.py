"""The model: where a model comes from and what it is, and running it.

``models`` (bundled, local folder or hub id; devices; loading), ``model_files`` (a local model's facts from its
files), ``identity`` (what stored results are keyed by), ``twin`` (the bundled model's untrained twin), ``mlm_head``,
``tokenizing`` and ``encoding`` (texts to model inputs, and the plain dataclasses they become), ``lengths`` (texts in
tokens: truncation notices, budgets), ``encoder`` (``Encoder``, the one interface to a loaded model) and
``token_index`` (every token of a corpus at every layer).

May import: checks, measures, words.
"""
