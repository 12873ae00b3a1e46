"""What the pages lay out: the page registry, and per page the numbers and wording a page may not decide.

``page_registry`` (``PAGES``), ``page_views`` (defaults, labels, counts, wording that depends on a number),
``comparison`` (Compare sentences), ``model_comparison`` and ``layer_matches`` (Compare models), ``token_pairs``
(Why similar), ``which_model`` (Which model?).

May import: checks, figures, measures, model, words.
"""
