"""Corpora beyond one server: sentence vectors computed once, offline, into a store a notebook memory-maps.

``run.precompute`` (the command ``python -m bertviz_core precompute``) writes a store (``layout``) with the local
engine or on Ray Data (``ray_engine``); ``reader.open_store`` opens a finished one.
"""
