"""Ways to draw a 2-D map of 100,000 and 1,000,000 points in a Streamlit page, side by side in headless Chromium.

    .venv/bin/python -u bench/map_drawing.py [--sizes 100000,1000000] [--repeats 2] [--only NAME]

Candidates (what each draws is in APP below; bench-only packages: bench/requirements-maps.txt): plotly-scattergl
(every point), vega-density (a 256x256 density under a 10,000-point sample), datashader-image (a server-drawn image
under a sample, in plotly), app-map (the app's map_figures: a density image under a sample, one Vega-Lite view on a
canvas), embedding-atlas (its Streamlit component). Data: synthetic, seeded: 6 Gaussian blobs, 4 labels, float32
coordinates, texts "row <i>".
Each candidate and size gets a fresh `streamlit run` of a temporary script (the project's .streamlit/config.toml,
maxMessageSize 2,000 MB) and browser; each visit a fresh page. First draw: navigation start to the first poll where
the script is idle and the candidate's canvas holds drawn pixels (no fixed sleep), timed in the page. Zoom and
hover are checked on the first visit. A floor row (plotly, 100 points) shows any chart's first draw here.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from live_app import CHROMIUM, CHROMIUM_ARGS, running_app  # noqa: E402
from playwright.sync_api import Browser, Page, Playwright, Route, sync_playwright  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402

FLOOR = ("plotly-scattergl", 100)  # a chart of 100 points: Streamlit's and plotly's own cost of a first draw
CANDIDATES = ("plotly-scattergl", "vega-density", "datashader-image", "app-map", "embedding-atlas")
DRAW_TIMEOUT_MS = 120_000
CHECK_TIMEOUT_MS = 20_000  # one zoom or hover: past this it counts as "no"
ATLAS_CDN = "https://cdn.jsdelivr.net/npm/@duckdb/duckdb-wasm@"
# Embedding Atlas draws with WebGPU only ("This view requires a browser with WebGPU support"); Chromium on Linux
# exposes navigator.gpu only with this flag, then on SwiftShader's software adapter. Plotly and Vega ignore it.
BROWSER_ARGS = [*CHROMIUM_ARGS, "--enable-unsafe-webgpu"]

# The page the server runs; MAP_CANDIDATE and MAP_N choose what it draws.
APP = r'''
import os
import numpy as np, pandas as pd, plotly.graph_objects as go, streamlit as st

CANDIDATE, N, SAMPLE = os.environ["MAP_CANDIDATE"], int(os.environ["MAP_N"]), 10_000
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]


@st.cache_resource  # the data is "already loaded", as in the app's stores: each visit pays only for drawing
def points(n):
    rng = np.random.default_rng(0)
    centres = np.array([[-4, -2], [3, 3], [4, -3], [-2, 4], [0, 0], [6, 1]], np.float32)
    blob = rng.integers(0, len(centres), n)
    xy = (centres[blob] + rng.normal(0, 0.9, (n, 2))).astype(np.float32)
    texts = np.char.add("row ", np.arange(n).astype(str)).astype(object)
    return xy, (blob % 4).astype(np.int8), texts, rng.choice(n, min(SAMPLE, n), replace=False)


xy, labels, texts, sample = points(N)
lo, hi = xy.min(0), xy.max(0)

def traces(rows, **marker):  # one Scattergl trace per label; hover shows each point's text
    return [go.Scattergl(x=xy[r, 0], y=xy[r, 1], text=texts[r], hoverinfo="text", mode="markers",
                         name=f"label {k}", marker=dict(color=COLOURS[k], **marker))
            for k in range(4) for r in [rows[labels[rows] == k]]]


if CANDIDATE == "plotly-scattergl":  # every point; hover shows its text
    st.plotly_chart(go.Figure(traces(np.arange(N), size=2 if N > 1000 else 8)), key="map")  # the floor: 100, larger
elif CANDIDATE == "vega-density":  # density rects + a sample with tooltips, zoomed by the scale binding
    import altair as alt
    counts, xe, ye = np.histogram2d(xy[:, 0], xy[:, 1], bins=256)
    ix, iy = np.nonzero(counts)  # only the bins with points: a quarter of the 65,536 here
    dens = pd.DataFrame({"x": xe[ix], "x2": xe[ix + 1], "y": ye[iy], "y2": ye[iy + 1], "n": counts[ix, iy]})
    pts = pd.DataFrame({"x": xy[sample, 0], "y": xy[sample, 1], "label": labels[sample].astype(str),
                        "text": texts[sample].astype(str)})
    heat = alt.Chart(dens).mark_rect(clip=True).encode(x="x:Q", x2="x2", y="y:Q", y2="y2", color=alt.Color(
        "n:Q", scale=alt.Scale(type="log", scheme="greys"), legend=None))
    dots = alt.Chart(pts).mark_circle(size=14, opacity=0.6, clip=True).encode(
        x="x:Q", y="y:Q", color=alt.Color("label:N", scale=alt.Scale(range=COLOURS)), tooltip=["text:N"]
    ).add_params(alt.selection_interval(bind="scales"))
    st.altair_chart((heat + dots).resolve_scale(color="independent").properties(height=500), key="map")
elif CANDIDATE == "datashader-image":  # every point drawn on the server, plotly zooms (stretches it) and hovers
    import datashader as ds, datashader.transfer_functions as tf
    frame = pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "label": pd.Categorical(labels)})
    canvas = ds.Canvas(plot_width=800, plot_height=500, x_range=(lo[0], hi[0]), y_range=(lo[1], hi[1]))
    image = tf.shade(canvas.points(frame, "x", "y", ds.count_cat("label")), color_key=COLOURS, how="eq_hist")
    fig = go.Figure(traces(sample, size=3, opacity=0.4), layout=dict(xaxis_range=[lo[0], hi[0]],
                                                                      yaxis_range=[lo[1], hi[1]]))
    fig.add_layout_image(source=image.to_pil(), xref="x", yref="y", x=lo[0], y=hi[1], sizex=hi[0] - lo[0],
                         sizey=hi[1] - lo[1], sizing="stretch", layer="below")
    st.plotly_chart(fig, key="map")
elif CANDIDATE == "app-map":  # the app's own map (map_figures), built once as the app caches it: every point up
    import sys  # to 20,000; beyond, a density image of every point under a 10,000-point sample
    sys.path.insert(0, os.environ["MAP_ROOT"])
    from bertviz_core.figures.map_figures import map_drawing, map_spec
    drawing = st.cache_resource(lambda n: map_drawing(xy, labels.astype(str).tolist(), texts.tolist()))(N)
    st.vega_lite_chart(map_spec(drawing, "map"), key="map", width="stretch")
else:  # every point, in an iframe: DuckDB-WASM (from the CDN, answered by duckdb_from_wheel) and WebGPU
    from embedding_atlas.streamlit import embedding_atlas
    frame = pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "label": labels.astype(str), "text": texts.astype(str)})
    embedding_atlas(frame, x="x", y="y", text="text", labels="disabled", key="map")
'''

# In-page helpers: the candidate's canvases (the atlas's are in a same-origin iframe's shadow roots), how many of
# their pixels are drawn (a 48x48 copy: drawImage reads 2-D, WebGL and WebGPU canvases), a signature of them.
HELPERS = r"""
window.__deep = (root, sel) => [...root.querySelectorAll(sel), ...[...root.querySelectorAll('*')]
  .filter(el => el.shadowRoot).flatMap(el => window.__deep(el.shadowRoot, sel))];
window.__frames = () => [...document.querySelectorAll('iframe')].map(f => f.contentDocument).filter(d => d && d.body);
window.__canvases = () => window.__frames().map(d => window.__deep(d, 'canvas')).find(cs => cs.length)
  || [...document.querySelectorAll('.js-plotly-plot .gl-container canvas, .vega-embed canvas')];
window.__pixels = () => window.__canvases().filter(c => c.width && c.height).map(c => {
  const s = document.createElement('canvas'); s.width = s.height = 48;
  const g = s.getContext('2d'); g.drawImage(c, 0, 0, 48, 48); return g.getImageData(0, 0, 48, 48).data; });
window.__drawn = () => window.__pixels().reduce((n, d) => { for (let i = 0; i < d.length; i += 4)
  n += d[i + 3] > 0 && (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235); return n; }, 0);
window.__box = () => {  // the largest canvas's box in page coordinates (an iframe's offset added)
  const c = window.__canvases().filter(c => c.width).sort((a, b) => b.width * b.height - a.width * a.height)[0];
  const r = c.getBoundingClientRect(), f = c.ownerDocument.defaultView.frameElement?.getBoundingClientRect();
  return {x: r.left + (f ? f.left : 0), y: r.top + (f ? f.top : 0), width: r.width, height: r.height}; };
window.__signature = () => window.__pixels().map(d => d.reduce((a, v, i) => (a + v * (i % 97 + 1)) % 1e9, 0)).join();
"""
# Drawn: idle, and the candidate's canvas has >= 30 drawn pixels of 2,304 (datashader's also its image in the
# plot's SVG). Returns the time from navigation start in ms, or why it cannot
# draw: the script failed (a missing package), or the atlas has no WebGPU with shader-f16 (software adapters lack it).
DRAWN = """c => document.querySelector("[data-testid='stApp'][data-test-script-state='notRunning']")
  && (document.querySelector('[data-testid=stException]') ? 'script error (server log)'
  : window.__frames().some(d => window.__deep(d, 'div, span, p').some(e => e.textContent.startsWith(
    'WebGPU is unavailable'))) ? `no draw: needs WebGPU (said at ${(performance.now() / 1000).toFixed(1)} s)`
  : window.__drawn() >= 30 && (c !== 'datashader-image' || document.querySelector('.imagelayer image'))
  && performance.now())"""
PLOTLY_CENTRE = """() => { const gd = document.querySelector('.js-plotly-plot'), r = gd.getBoundingClientRect();
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;  // the blob at (3, 3): dense everywhere near it
  return [r.left + xa._offset + xa.l2p(3), r.top + ya._offset + ya.l2p(3)]; }"""
PLOTLY_RANGE = "() => JSON.stringify(document.querySelector('.js-plotly-plot')._fullLayout.xaxis.range)"
TOOLTIP = """() => { const els = [...document.querySelectorAll('.hoverlayer .hovertext, #vg-tooltip-element.visible')];
  for (const doc of window.__frames()) els.push(...window.__deep(doc, '[class*=tooltip], [role=tooltip]'));
  return els.some(e => /row \\d+/.test(e.textContent)); }"""


def timed(page: Page, condition: str, timeout_ms: int = CHECK_TIMEOUT_MS, arg: object = None) -> str:
    """"yes (seconds until ``condition`` held in the page)", or "no" when it did not within the timeout."""
    start = time.perf_counter()
    try:
        page.wait_for_function(condition, arg=arg, timeout=timeout_ms, polling=50)
    except PlaywrightTimeout:
        return "no"
    return f"yes ({time.perf_counter() - start:.1f} s)"


def check_zoom(page: Page, candidate: str) -> str:
    """Zoom by a box drag (plotly's default drag mode) or a wheel (vega's scale binding, the atlas), seen
    as plotly's x range changing or the canvas's pixels changing."""
    if "plotly" in candidate or "datashader" in candidate:
        before = page.evaluate(PLOTLY_RANGE)
        x, y = page.evaluate(PLOTLY_CENTRE)
        page.mouse.move(x - 80, y - 50)
        page.mouse.down()
        page.mouse.move(x + 80, y + 50, steps=5)
        page.mouse.up()
        return timed(page, f"() => ({PLOTLY_RANGE})() !== {before!r}")
    before = page.evaluate("window.__signature()")
    b = page.evaluate("window.__box()")
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
    page.mouse.wheel(0, -400)
    return timed(page, "s => window.__signature() !== s", arg=before)


def check_hover(page: Page, candidate: str) -> str:
    """Move the mouse over dense spots until a tooltip shows a point's text ("row <i>")."""
    if "plotly" in candidate or "datashader" in candidate:  # plotly tells where the blob at (3, 3) is
        x, y = page.evaluate(PLOTLY_CENTRE)
        page.mouse.move(x, y, steps=2)
        return timed(page, TOOLTIP)
    # Vega's and the atlas's scales are not exposed: try a grid of spots over the canvas, 0.3 s each
    b, start = page.evaluate("window.__box()"), time.perf_counter()
    for x, y in ((b["x"] + b["width"] * i / 8, b["y"] + b["height"] * j / 6)
                 for j in range(1, 6) for i in range(1, 8)):
        page.mouse.move(x, y, steps=2)
        if timed(page, TOOLTIP, 300) != "no":
            return f"yes ({time.perf_counter() - start:.1f} s of grid scan)"
    return "no"


def visit(browser: Browser, url: str, candidate: str, pid: int, checks: bool) -> dict[str, Any]:
    """One fresh page: its first draw (s; None on a timeout or a failure, said in "failed"), the websocket MB
    it received by then, the server's RSS, and with ``checks`` whether zoom and hover work."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    if candidate == "embedding-atlas":  # no CDN here: serve DuckDB-WASM from the copy in the package's wheel
        context.route(f"{ATLAS_CDN}**", duckdb_from_wheel)
    page = context.new_page()
    page.add_init_script(HELPERS)
    received: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda data: received.append(len(data))))
    page.goto(url)
    result: dict[str, Any] = {"draw": None, "zoom": "not checked", "hover": "not checked",
                                 "failed": f"timeout (>{DRAW_TIMEOUT_MS // 1000} s)"}
    try:
        drawn = page.wait_for_function(DRAWN, arg=candidate, timeout=DRAW_TIMEOUT_MS, polling=50).json_value()
        result["failed" if isinstance(drawn, str) else "draw"] = drawn if isinstance(drawn, str) else drawn / 1000
    except PlaywrightTimeout:
        pass
    result["ws_mb"], result["rss_mib"] = sum(received) / 1e6, rss_mib(pid)
    if checks and result["draw"] is not None:
        result["hover"] = check_hover(page, candidate)  # before the zoom, which moves the dense spots
        result["zoom"] = check_zoom(page, candidate)
    context.close()
    return result


def duckdb_from_wheel(route: Route) -> None:
    """Answer a DuckDB-WASM CDN request with the same version's file that embedding-atlas's wheel ships for
    its own server (static/assets), as a page behind a firewall with a self-hosted copy would."""
    import embedding_atlas
    stem, suffix = route.request.url.rsplit("/", 1)[1].rsplit(".", 1)  # duckdb-eh.wasm, ...worker.js
    found = sorted((Path(embedding_atlas.__file__).parent / "static/assets").glob(f"{stem}-*.{suffix}"))
    if not found:  # another DuckDB-WASM file than the wheel has: fail as the unreachable CDN would
        return route.abort()
    kind = "application/wasm" if suffix == "wasm" else "text/javascript"  # as jsDelivr serves them
    route.fulfill(body=found[0].read_bytes(), headers={"content-type": kind, "access-control-allow-origin": "*"})


def rss_mib(pid: int) -> float:
    """The server's resident memory (VmRSS from /proc)."""
    found = re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())
    return int(found.group(1)) / 1024 if found else float("nan")


def measure(pw: Playwright, app: Path, candidate: str, n: int, repeats: int) -> dict[str, str]:
    """Every visit of one candidate at one size, on its own server and browser, summarised as a table row."""
    env = {"MAP_CANDIDATE": candidate, "MAP_N": str(n), "MAP_ROOT": str(ROOT), "STREAMLIT_SERVER_HEADLESS": "true",
           "STREAMLIT_SERVER_MAX_MESSAGE_SIZE": "2000"}  # MB; Streamlit's default is 200
    log = app.with_name(f"{candidate}-{n}.log")
    visits: list[dict[str, Any]] = []
    with running_app(str(app), env=env, log=log) as live:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        for i in range(repeats):
            visits.append(visit(browser, live.url, candidate, live.pid, checks=i == 0))
            if visits[-1]["draw"] is None:
                break  # a timeout or a failure: a second try would only spend another timeout
        browser.close()
    draws = [v["draw"] for v in visits if v["draw"] is not None]
    ws = statistics.median(v["ws_mb"] for v in visits)
    errors = [line.strip()[:120] for line in log.read_text().splitlines() if "Error" in line or "exceeds" in line]
    notes = ["runs " + ", ".join(str(v["failed"]) if v["draw"] is None else f"{v['draw']:.1f}" for v in visits),
             *(["over Streamlit's default 200 MB message limit"] if ws > 200 else []), *errors[-1:]]
    return {"draw": f"{statistics.median(draws):.1f}" if len(draws) == len(visits) else str(visits[-1]["failed"]),
            "zoom": str(visits[0]["zoom"]), "hover": str(visits[0]["hover"]), "ws": f"{ws:.2f}",
            "rss": f"{max(v['rss_mib'] for v in visits):.0f}", "note": "; ".join(notes)}


def machine(pw: Playwright) -> str:
    """CPUs, load, chromium's version, its WebGL renderer and WebGPU adapter (software: SwiftShader, no GPU)."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
    page = browser.new_page()  # WebGPU is only offered to secure origins: a stub page at http://localhost/
    page.route("http://localhost/", lambda route: route.fulfill(body="<html></html>", content_type="text/html"))
    page.goto("http://localhost/")
    gl, gpu = page.evaluate("""async () => { const gl = document.createElement('canvas').getContext('webgl2');
      const i = gl && gl.getExtension('WEBGL_debug_renderer_info');
      const a = navigator.gpu && await navigator.gpu.requestAdapter();
      return [gl ? gl.getParameter(i ? i.UNMASKED_RENDERER_WEBGL : gl.RENDERER) : 'none',
              a ? `${a.info.vendor} ${a.info.architecture}, shader-f16: ${a.features.has('shader-f16')}` : 'none']; }""")
    version = browser.version
    browser.close()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"Machine: {os.cpu_count()} CPUs, load average {load} at start; headless Chromium {version} ({CHROMIUM},"
            f" {' '.join(BROWSER_ARGS)}); software rendering, no GPU: WebGL renderer {gl}; WebGPU adapter {gpu}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--only", default="", help="measure only the candidates whose name contains this")
    args = parser.parse_args()
    runs = [FLOOR] + [(c, int(n)) for c in CANDIDATES if args.only in c for n in args.sizes.split(",")]
    rows = []
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as folder:
        print(machine(pw), flush=True)
        (app := Path(folder) / "map_app.py").write_text(APP)
        started = time.perf_counter()
        for candidate, n in runs:
            rows.append((f"floor: {candidate}" if (candidate, n) == FLOOR else candidate, n,
                         measure(pw, app, candidate, n, args.repeats)))
            print(f"  {rows[-1]}", file=sys.stderr, flush=True)  # progress, in case the run is cut short
    print(f"Total {time.perf_counter() - started:.0f} s. Data: synthetic (6 seeded Gaussian blobs, 4 labels, float32)."
          f" First draw: navigation start to the chart drawn, median of {args.repeats} fresh pages.\n")
    print(f"| candidate | points | first draw s (median of {args.repeats}) | zoom | hover shows text | websocket MB "
          "| server RSS MiB | note |\n|---|---|---|---|---|---|---|---|")
    for candidate, n, r in rows:
        print(f"| {candidate} | {n:,} | {r['draw']} | {r['zoom']} | {r['hover']} | {r['ws']} | {r['rss']} "
              f"| {r['note']} |")


if __name__ == "__main__":
    main()
