"""What the pages lay out: the page registry, and per page the numbers and wording a page may not decide.

``page_registry`` (``PAGES``), ``page_views`` (defaults, labels, counts, wording that depends on a number),
``comparison`` (Compare sentences), ``model_comparison`` and ``layer_matches`` (Compare models), ``token_pairs``
(Why similar), ``which_model`` (Which model?), ``similar_contexts`` (Similar contexts' neighbours in context and the
share of same-word neighbours by layer).

May import: checks, figures, measures, model, words.
"""
