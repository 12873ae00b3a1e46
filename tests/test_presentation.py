"""Presentation mode on one 1280 x 720 screen at 150 % zoom (853 x 480 CSS px), checked as a person sees it.

Every page, and the views that appear only after picking a tab (the Attention head and model views, the
Statistics tab, Task measures' maps, ...), is opened in a real browser at that size. In the page, a script
measures what is drawn: no chart or table taller than the screen below Streamlit's header bar, no chart text cut by its chart's edge
or lying on other text (rotated labels compared as the rotated rectangles they are), chart text of at
least 12 CSS px, and no picker showing its value cut short ("euclide", "ls ×") or its tags spilt out of
its box. A chart drawn on a canvas (Vega-Lite: the heatmaps of ``ui.canvas_heatmap``, the grids of scatters) has no
text in the page to measure: its height is measured here, its text sizes are the spec's
(tests/test_presentation_mode.py). Normal mode at the same size must not clip, overlap or cut either; there, charts may be taller
than the screen (the page scrolls).
With BERTVIZ_SHOTS=<folder>, screenshots of every view (and each chart and table brought into view) go there
for a person to look at (`make screenshots` writes the README's); the suite takes none by default.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from browser_views import LABELS_CUT_JS, require_chromium
from live_app import DRAWN_JS, wait_idle
from page_checks import checks

require_chromium()

from playwright.sync_api import Page  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402

from bertviz_core.figures.axes import NAMED_COLUMNS  # noqa: E402
from bertviz_core.views.page_registry import PAGES  # noqa: E402

WIDTH, HEIGHT = 853, 480  # 1280 x 720 at 150 %
MIN_FONT_PX = 12
SHOTS = os.environ.get("BERTVIZ_SHOTS")  # a folder for the screenshots, or None: take none
# Views reached only through a tab or a choice, as query parameters (the tabs are bound to the link), and
# the longest choices of the boxes that are narrowest: each page's checks name them.
EXTRA_VIEWS = {entry.url_path: checks(entry).extra_views for entry in PAGES}
VIEWS = [(entry.url_path, "") for entry in PAGES] + [
    (path, query) for path, queries in EXTRA_VIEWS.items() for query in queries]

# Everything a person would see cut or overlapping, measured in the page. Returns a list of problems, each
# naming the element and its numbers.
AUDIT_JS = """([present, minFont]) => {
  const problems = [], tol = 1;
  // the screen less Streamlit's header bar, which stays over the top of the page
  const H = window.innerHeight - document.querySelector('[data-testid=stHeader]').getBoundingClientRect().height;
  const name = el => {
    const keyed = el.closest('[class*="st-key-"]');
    const key = keyed ? Array.from(keyed.classList).find(c => c.startsWith('st-key-')).slice(7) : '';
    const title = el.querySelector ? (el.querySelector('.gtitle') || {}).textContent || '' : '';
    return `${key || el.getAttribute('data-testid') || el.className}` + (title ? ` "${title}"` : '');
  };
  const visible = el => {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || parseFloat(s.opacity) === 0) return false;
    }
    return true;
  };
  const main = document.querySelector('[data-testid=stMain]');
  const fontPx = t => parseFloat(getComputedStyle(t).fontSize);
  // 1. Nothing taller than the screen (presentation only: a normal page scrolls).
  if (present) {
    for (const el of document.querySelectorAll('[data-testid=stPlotlyChart], [data-testid=stVegaLiteChart], '
        + '.bv-table, [data-testid=stDataFrame]')) {
      const h = el.getBoundingClientRect().height;
      if (h > H + tol) problems.push([name(el), 'too tall', `${Math.round(h)} px tall, the screen below the header ${Math.round(H)}`]);
    }
  }
  // 2. Chart text: inside its chart, not on other text, large enough.
  const corners = t => {  // the text's own box, rotated and moved as drawn, in CSS px of the page; its
    // height is one em, the letters', not the line's (which is a quarter more, blank above and below)
    const b = t.getBBox(), m = t.getScreenCTM(), inset = Math.max(0, (b.height - fontPx(t)) / 2);
    const top = b.y + inset, bottom = b.y + b.height - inset;
    return [[b.x, top], [b.x + b.width, top], [b.x + b.width, bottom], [b.x, bottom]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  const overlap = (p, q) => {  // separating axes of two convex quadrilaterals; the depth, 0 when apart
    let depth = Infinity;
    for (const poly of [p, q]) for (let i = 0; i < 4; i++) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4], len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const nx = (y1 - y2) / len, ny = (x2 - x1) / len;
      const proj = r => r.map(([x, y]) => x * nx + y * ny);
      const a = proj(p), b = proj(q);
      depth = Math.min(depth, Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b)));
      if (depth <= 0) return 0;
    }
    return depth;
  };
  const kind = t => {
    const g = t.closest('.gtitle, .xtick, .ytick, .g-xtitle, .g-ytitle, .legend, .annotation, .colorbar, '
                       + '.heatmaplayer, .cbaxis, .infolayer, .cartesianlayer');
    return (t.classList.contains('gtitle') ? 'title' : g ? (g.getAttribute('class') || '').split(' ')[0] : 'text')
           + ` "${t.textContent.slice(0, 40)}"`;
  };
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const box = plot.getBoundingClientRect();
    const texts = Array.from(plot.querySelectorAll('svg.main-svg text'))
      .filter(t => t.textContent.trim() && visible(t) && t.getBBox().width > 0 && !t.closest('.hoverlayer'));
    const quads = texts.map(corners);
    texts.forEach((t, i) => {
      const xs = quads[i].map(c => c[0]), ys = quads[i].map(c => c[1]);
      const out = Math.max(box.left - Math.min(...xs), Math.max(...xs) - box.right,
                           box.top - Math.min(...ys), Math.max(...ys) - box.bottom);
      if (out > tol) problems.push([name(plot), 'text cut', `${kind(t)} by ${Math.round(out)} px`]);
      const size = fontPx(t);
      if (present && size < minFont) problems.push([name(plot), `text under ${minFont} px`, `${kind(t)} ${size} px`]);
    });
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const depth = overlap(quads[i], quads[j]);
      if (depth > tol) problems.push([name(plot), 'text overlaps text',
                                      `${kind(texts[i])} and ${kind(texts[j])} by ${depth.toFixed(1)} px`]);
    }
  }
  // 3. Pickers show their whole value: a selectbox its choice, a multiselect all its tags.
  const ruler = document.createElement('canvas').getContext('2d');
  main.querySelectorAll('[data-testid=stSelectbox]').forEach(box => {
    const input = box.querySelector('input'), s = getComputedStyle(input);
    ruler.font = s.font;
    const room = input.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    for (const option of [input.value]) {
      const need = ruler.measureText(option).width;
      if (need > room + tol) problems.push([name(box), 'choice cut', `"${option}" needs ${Math.round(need)} px, `
                                            + `the box shows ${Math.round(room)}`]);
    }
  });
  for (const tags of main.querySelectorAll('[data-testid=stMultiSelectTagsContainer]')) {
    if (tags.scrollWidth > tags.clientWidth + tol)
      problems.push([name(tags), 'tags cut', `its tags need ${tags.scrollWidth} px, the box shows ${tags.clientWidth}`
                     + ` ("${tags.innerText.replace(/\s+/g, ' ')}")`]);
    for (const tag of tags.querySelectorAll('[title]'))
      if (tag.scrollWidth > tag.clientWidth + tol || tag.scrollHeight > tag.clientHeight + tol)
        problems.push([name(tags), 'tags cut', `"${tag.title}" is cut`]);
    // every tag inside the box drawn around them, not spilt out under the widget that follows
    const field = tags.parentElement.getBoundingClientRect();
    for (const tag of tags.querySelectorAll('[data-tag]')) {
      const r = tag.getBoundingClientRect();
      if (r.bottom > field.bottom + tol || r.right > field.right + tol)
        problems.push([name(tags), 'tags cut', `"${tag.innerText.trim()}" lies outside its box, under what follows`]);
    }
  }
  // 4. Nothing wider than the page.
  const edge = main.getBoundingClientRect().right + tol;
  if (main.scrollWidth > main.clientWidth + tol) problems.push(['the page', 'too wide', `scrolls sideways (${main.scrollWidth} px)`]);
  for (const el of main.querySelectorAll('.js-plotly-plot, [data-testid=stVegaLiteChart], .bv-table, '
                                         + '[data-testid=stButton], [data-testid=stDownloadButton]'))
    if (el.getBoundingClientRect().right > edge) problems.push([name(el), 'too wide', `reaches past the page's right edge`]);
  // 5. Every button shows its whole label (the labels-cut check of browser_views), not one cut short with "…".
  for (const [label, need, shown] of (LABELS_CUT_JS)())
    problems.push([`button "${label}"`, 'label cut', `its label needs ${need} px, the button shows ${shown}`]);
  return problems;
}""".replace("LABELS_CUT_JS", LABELS_CUT_JS)
# Every token a chart shows is named on screen, in presentation mode and normal (#51): each row of a heatmap, each
# of its columns (by its label, or by its number with the label in a key beside the plot or among the rows), and
# each labelled point of a column of points. Plotly leaves out tick labels it finds crowded: squeezed to the
# screen, these charts lost half their rows that way. NAMED_CHARTS: the views' charts checked, by their keys. A
# heatmap on a canvas (Why similar's wy_matrix, Attention's at_head_chart, ...) has no text here: its spec names every
# row and column, none left out (tests/core/test_figures.py, tests/pages/test_why_similar_page.py,
# tests/pages/test_attention_page.py).
NAMED_CHARTS = {("attention", "at_tab=From+one+token"): ["at_token_raw", "at_token_rollout"],
                ("why_similar", "wy_view=Each+token%27s+share+and+MaxSim"): ["wy_lines"],
                ("word_similarity", ""): ["ws_scores"],
                # Layer values' 22 tokens by layer, and by 384 dimensions (named at a step: they are no tokens)
                ("layer_values", ""): ["lv_norms"],
                ("layer_values", "lv_tab=Token+%C3%97+dimension+at+the+chosen+layer"): ["lv_dims"]}
CHARTS_DRAWN_JS = "keys => keys.every(key => document.querySelector(`.st-key-${key} .js-plotly-plot .main-svg`))"
# Returns [chart, what, detail] for each chart of ``charts`` missing or with a token not named.
NAMES_JS = """charts => {
  const problems = charts.filter(key => !document.querySelector(`.st-key-${key} .js-plotly-plot`))
    .map(key => [key, 'chart missing', 'not drawn on the page']), decode = s => new DOMParser().parseFromString(String(s), 'text/html').body.textContent;
  const shown = (plot, selector) => Array.from(plot.querySelectorAll(selector)).map(t => t.textContent);
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const keyed = plot.closest('[class*="st-key-"]');
    const chart = keyed ? Array.from(keyed.classList).find(c => c.startsWith('st-key-')).slice(7) : 'a chart';
    if (!charts.includes(chart)) continue;
    const keyLines = Array.from(plot.querySelectorAll('.annotation-text')).flatMap(t => {
      const lines = t.querySelectorAll('tspan.line');
      return lines.length ? Array.from(lines, l => l.textContent) : [t.textContent]; });
    plot.data.forEach(trace => {
      if (trace.type === 'heatmap' && Array.isArray(trace.y) && trace.y.every(v => typeof v === 'string')) {
        const rows = trace.y.map(decode), columns = (trace.x || []).map(decode);
        const yTicks = shown(plot, `.${trace.yaxis || 'y'}tick text`), xTicks = shown(plot, `.${trace.xaxis || 'x'}tick text`);
        const unnamedRows = rows.filter(r => !yTicks.includes(r));
        if (unnamedRows.length) problems.push([chart, 'rows not named', `${unnamedRows.length} of ${rows.length}: ${unnamedRows.slice(0, 4)}`]);
        // past NAMED_COLUMNS numbered columns (dimensions, figures.axes) a tick every round step names them
        if (columns.every(v => typeof v === 'string') && !(columns.length > NAMED_COLUMNS && columns.every(v => /^\\d+$/.test(v)))) {
          const unnamed = columns.filter(c => !xTicks.includes(c) && !(xTicks.includes((c.match(/^(?:B )?(\\d+) · /) || [])[1])
                                                                        && (keyLines.includes(c) || rows.includes(c))));
          if (unnamed.length) problems.push([chart, 'columns not named', `${unnamed.length} of ${columns.length}: ${unnamed.slice(0, 4)}`]);
        }
      }
    });
    const labelled = plot.data.filter(t => t.type === 'scatter' && Array.isArray(t.text) && (t.mode || '').includes('text'));
    const drawn = shown(plot, '.textpoint text').filter(t => t.trim()), texts = labelled.flatMap(t => t.text.map(decode));
    const missing = texts.filter(t => !t.trim() || !drawn.includes(t));
    if (missing.length || drawn.length < texts.length)
      problems.push([chart, 'points not named', `${texts.length - drawn.length} of ${texts.length}: ${missing.slice(0, 4)}`]);
  }
  return problems;
}""".replace("NAMED_COLUMNS", str(NAMED_COLUMNS))
# Every chart on the page drawn: plotly's SVG, Vega's canvas.


def open_at_150_percent(page: Page, url: str) -> Page:
    """``url`` loaded in ``page`` (conftest's ``screen_150``, 853 x 480 CSS px), its run finished and its charts
    drawn."""
    page.goto(url)
    wait_idle(page)
    page.wait_for_function(DRAWN_JS, timeout=60_000)
    wait_idle(page)
    try:  # the page's stylesheet is an element of its run: on a busy machine it can land after the widgets
        page.wait_for_function(STYLED_JS, arg="present=true" in url, timeout=10_000)
    except PlaywrightTimeout:
        pass  # never applied: the audit reports what it left cut
    return page


# ui.layout.present's stylesheets have reached the page: every row of columns and every multiselect's tags wrap
# (COLUMNS_STYLE), and in presentation mode the root font is large (STYLE). A page without a multiselect must
# still wait: its columns are squeezed until the sheet lands.
STYLED_JS = """present => [...document.querySelectorAll(
      '[data-testid=stHorizontalBlock], [data-testid=stMultiSelectTagsContainer]')]
    .every(el => getComputedStyle(el).flexWrap === 'wrap')
  && (!present || getComputedStyle(document.documentElement).fontSize === '22px')"""


def report(where: str, problems: list[list[str]]) -> str:
    """The problems by element and check, three examples each: readable even when 40 labels are too small."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for element, check, detail in problems:
        grouped.setdefault((element, check), []).append(detail)
    lines = [f"{element}: {check}: " + "; ".join(details[:3]) + (f" (and {len(details) - 3} more)"
                                                                  if len(details) > 3 else "")
             for (element, check), details in grouped.items()]
    return f"{where}: {len(problems)} problem(s)\n" + "\n".join(lines)


def screenshots(page: Page, stem: str) -> None:
    """The screen as opened, then each chart and table brought into view, into SHOTS when it is set."""
    if not SHOTS:
        return
    folder = Path(SHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=folder / f"{stem}.png")
    shown = page.locator("[data-testid=stPlotlyChart], [data-testid=stVegaLiteChart], .bv-table")
    for i in range(shown.count()):
        shown.nth(i).evaluate("el => el.scrollIntoView({block: 'end'})")  # clear of the header bar when it fits
        page.screenshot(path=folder / f"{stem}-{i + 1:02d}.png")


@pytest.mark.parametrize("present", [True, False], ids=["presentation", "normal"])
@pytest.mark.parametrize(("path", "query"), VIEWS, ids=[f"{p or 'home'}{'?' + q if q else ''}" for p, q in VIEWS])
def test_every_view_fits_one_screen_at_150_percent(server: str, screen_150: Page, path: str, query: str,
                                                   present: bool) -> None:
    params = "&".join(p for p in (query, "present=true" if present else "") if p)
    page = open_at_150_percent(screen_150, f"{server}/{path}" + (f"?{params}" if params else ""))
    where = f"/{path}?{params}"
    assert page.locator("[data-testid='stException']").count() == 0, where
    if present:
        assert page.locator("[data-testid=stSidebar][aria-expanded=true]").count() == 0, where
        assert page.locator("[data-testid=stDownloadButton], [data-testid=stCode]").count() == 0, where
    named = NAMED_CHARTS.get((path, query), [])
    if named:  # the run that draws them can start after the page first reads as idle
        page.wait_for_function(CHARTS_DRAWN_JS, arg=named, timeout=90_000)
        wait_idle(page)
    problems = page.evaluate(AUDIT_JS, [present, MIN_FONT_PX]) + page.evaluate(NAMES_JS, named)
    screenshots(page, re.sub(r"\W+", "_", f"{'present' if present else 'normal'}_{path or 'home'}_{query}").strip("_"))
    assert not problems, report(where, problems)
