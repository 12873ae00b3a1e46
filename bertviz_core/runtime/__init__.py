"""Where results live and where large jobs run: ``store`` (``ByteBoundedStore``, shared by every session, memory
within a byte budget, larger results memory-mapped), ``offload`` (the idle-priority worker process; ``worker``, its
side), ``jobs``
(``JOBS``, what a worker runs: corpus-long model runs and the warm-up's computations) and ``class_server``
(several Streamlit processes behind HAProxy, `make serve`).

May import: checks, model, measures (jobs), views (jobs).
"""
