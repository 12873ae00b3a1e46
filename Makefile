# make run : create the environment and serve the app on the bundled model (http://localhost:8501)
# make test: create the environment, install a headless browser, run every test offline
# make test-fast: the core and the pages' AppTests, neither browser nor slow tests (the inner loop)
# make serve WORKERS=N: a class server, N Streamlit processes behind HAProxy on one address (default: one per core)
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
PYTEST := HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest -q
# The tests' workers (pytest-xdist), one per core; they share one app server (conftest's ``server``) and each
# drives its own chromium. The Ray tests run in one worker (their xdist_group): one local Ray.
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: run serve test test-fast browser haproxy screenshots
# The install ends by compiling umap's functions into numba's cache in the venv, so that no first map (the app's,
# a precompute's, a test's) compiles them (about 50 s of CPU).
$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	$(PY) -c "from bertviz_core.measures.projection import compile_umap; compile_umap()"
	touch $@

# One process, with what class_server adds to a process's environment (BLAS threads that sleep soon after a call);
# run as a file, it prints that without importing the package (torch).
run: $(VENV)/.installed
	added=$$($(PY) bertviz_core/runtime/class_server.py --workers 1 --env) && \
		env $$added $(VENV)/bin/streamlit run app.py --server.port $(PORT)

# README, "A class server": N processes, each browser kept on one by a cookie (bertviz_core/runtime/class_server.py).
WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
serve: $(VENV)/.installed haproxy
	$(PY) -m bertviz_core.runtime.class_server --workers $(WORKERS) --port $(PORT)

# Debian's chromium for the real-browser tests (playwright cannot download browsers here).
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null; } || \
	  echo "chromium is not installed and cannot be installed without root: browser tests will be skipped"

# Debian's haproxy for `make serve`, its browser test and bench-load (the same way as chromium).
haproxy:
	@command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || { [ "$$(id -u)" = 0 ] && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null; } || \
	  echo "haproxy is not installed and cannot be installed without root: make serve will not start, its test is skipped"

test: $(VENV)/.installed browser haproxy
	$(PYTEST) -n $(TEST_WORKERS) --dist loadgroup --durations=25

test-fast: $(VENV)/.installed
	$(PYTEST) -n $(TEST_WORKERS) --dist loadgroup -m "not browser and not slow"

# A corpus's sentence vectors into a store (docs/architecture.md, "Precomputed stores"); ENGINE=ray runs Ray Data,
# ARGS passes more options (python -m bertviz_core precompute --help), e.g.
#   make precompute INPUT=tickets.csv OUT=tickets-store ENGINE=ray ARGS="--strategies mean,cls --layers 3,6"
ENGINE ?= local
.PHONY: precompute
precompute: $(VENV)/.installed
	@[ -n "$(INPUT)" ] && [ -n "$(OUT)" ] || { echo "usage: make precompute INPUT=corpus.csv OUT=store [ENGINE=ray] [ARGS=...]"; exit 2; }
	$(PY) -m bertviz_core precompute "$(INPUT)" --out "$(OUT)" --engine $(ENGINE) $(ARGS)

# Screenshots of every page with its defaults, for the README (docs/*.png).
screenshots: $(VENV)/.installed browser
	$(PY) docs/screenshots.py

# Benchmarks (bench/): each prints its figures and ratios, measured side by side in one run.
BENCH := latency:interaction_latency calls:model_calls cold:cold_start memory:memory throughput:embed_throughput \
	load:server_load index:index_memory search:neighbour_search probe:probe_cost first:first_visit grid:grid_drawing \
	warmup:warm_up_effect visitors:visitors_memory precompute:precompute_throughput formats:store_formats \
	store:store_search maps:map_drawing cka:cka_speed attribution:attribution_speed \
	parts:latency_parts heatmap:heatmap_drawing
.PHONY: bench $(foreach b,$(BENCH),bench-$(firstword $(subst :, ,$(b))))
$(foreach b,$(BENCH),$(eval bench-$(firstword $(subst :, ,$(b))): $(VENV)/.installed browser ; \
	HF_HUB_OFFLINE=1 $(PY) bench/$(lastword $(subst :, ,$(b))).py))
bench: $(foreach b,$(BENCH),bench-$(firstword $(subst :, ,$(b))))
bench-load: haproxy
# Two models' probe cells on 2,000 texts: one at a time as before, on one BLAS thread, and on every core (issue #49).
.PHONY: bench-probe-models
bench-probe-models: $(VENV)/.installed
	HF_HUB_OFFLINE=1 $(PY) bench/probe_cost.py --compare
# A precompute's maps (PCA and UMAP of 38 columns of 2,737 rows) on one core beside every core (issue #51 item 10).
.PHONY: bench-precompute-maps
bench-precompute-maps: $(VENV)/.installed
	HF_HUB_OFFLINE=1 $(PY) bench/precompute_maps.py $(ARGS)
# The CUDA path (needs a GPU, so neither is part of `make test` or `make bench`): the core tests with their
# encoders on the GPU, and the GPU's vectors against the CPU's with the throughput of each BATCH_LIMITS["cuda"].
.PHONY: test-cuda bench-cuda
test-cuda: $(VENV)/.installed
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 BERTVIZ_TEST_DEVICE=cuda $(PY) -m pytest -q tests/core \
	  tests/test_model_family.py tests/test_lengths.py
bench-cuda: $(VENV)/.installed
	HF_HUB_OFFLINE=1 $(PY) bench/cuda_check.py
# The store-format candidate Lance is the bench's alone, not the app's requirements (faiss is the app's).
bench-formats: $(VENV)/.formats
$(VENV)/.formats: bench/requirements-formats.txt $(VENV)/.installed
	$(PY) -m pip install -q --disable-pip-version-check -r bench/requirements-formats.txt
	touch $@
# The map-drawing candidates datashader and Embedding Atlas are the bench's alone; the atlas's Streamlit component
# imports only streamlit, and its own requirements would add ~45 packages, so it comes without them.
bench-maps: $(VENV)/.maps
$(VENV)/.maps: bench/requirements-maps.txt $(VENV)/.installed
	$(PY) -m pip install -q --disable-pip-version-check -r bench/requirements-maps.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps embedding-atlas==0.26.0
	touch $@
