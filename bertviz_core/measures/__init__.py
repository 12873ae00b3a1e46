"""Measures: what is computed from the model's arrays, each with its registry where it has one.

``pooling`` (``POOLINGS``), ``similarity`` (``METRICS``, ``CORRECTIONS``), ``stats`` (Layer values' statistics),
``attention`` (``HEAD_STATISTICS``), ``cka`` (CKA and RSA), ``attribution`` (why two texts are similar;
``REFERENCES``), ``uncertainty`` (verdicts on paired replicates), ``task_measures`` (the probe and pair
correlation), ``pooling_grid`` (pooling cells and their scores), ``projection`` (``PROJECTIONS``), ``neighbours``
(nearest tokens and sentences, contextuality), ``masked`` (the masked-LM head's guesses and the logit lens).

May import: checks, figures (layer labels), model, words.
"""
