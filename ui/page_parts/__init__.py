"""What one page alone needs from the ui layer: ``compare_models`` (model B, both models' vectors, CKA and RSA
tables), ``why_similar`` (the shared pair attributions, MaxSim), ``masked`` (Masked words without the head),
``task_measures`` (the probe grids beside the silhouette's) and ``which_model`` (the models ranked, their costs)."""
