"""Words and tokens: pieces, words made of pieces, the vocabulary, and words aligned across tokenizers.

``tokens`` (token tables, highlighting), ``vocab`` (the vocabulary browser), ``word_vectors`` (word finding and
``SUBWORD_RULES``), ``word_alignment`` (one vector per word in two models), ``embedding_lens`` (a mask's nearest
input embeddings).

May import: checks, measures, model.
"""
