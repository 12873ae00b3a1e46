"""Where results live and where large jobs run: ``store`` (``ByteBoundedStore``, shared by every session, memory
within a byte budget, larger results memory-mapped) and ``offload`` (the idle-priority worker process).

May import: checks, model.
"""
