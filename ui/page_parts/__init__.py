"""What one page alone needs from the ui layer: ``compare_models`` (model B, both models' vectors, CKA and RSA
tables), ``why_similar`` (the shared pair attributions, MaxSim) and ``masked`` (Masked words without the head)."""
