"""A precomputed store as a page's corpus: ``corpus`` (its picker, the store opened once per server, its cached
searches), ``measures`` (probe, silhouette and maps of a labelled store), ``contexts`` (contextuality on a store's
sample) and ``exports`` (the Embedding Projector and Embedding Atlas downloads)."""
