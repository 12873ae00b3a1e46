"""A precomputed store as a page's corpus: ``opened`` (each store opened once per server, and what a page says when
one cannot be read), ``corpus`` (its picker, its cached searches), ``measures`` (probe and silhouette of a labelled
store), ``maps`` (a store's own maps), ``contexts`` (contextuality on a store's sample) and ``exports`` (the
Embedding Projector and Embedding Atlas downloads)."""
