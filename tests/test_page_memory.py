"""A page's namespace (every array it made) is freed when its run ends, not kept by the session.

A session keeps its widgets' functions (``format_func``, ``on_change``, ``on_select``) and its fragments for as
long as it lives, and a closed tab's session for its reconnection; a function defined in a page holds the page's
whole namespace through ``__globals__`` and, sitting in that namespace, makes a reference cycle that only a full
garbage collection frees (``runner.postScriptGC`` is off). Visitors on distinct 600-word texts kept ~98 MB
each (issue #27). Checked here from the source, and at run time on every page.
"""
from __future__ import annotations

import ast
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import open_page

from ui.widgets import detached

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
CALLBACKS = {"format_func", "on_change", "on_click", "on_select", "on_submit", "args", "kwargs"}


def own_function_uses(path: Path) -> Iterator[tuple[int, str]]:
    """(line, what) for every lambda, or function defined in the script, given to a widget's callback
    parameter (or its ``args``), and every function the script defines without ``@detached``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and not any(
                isinstance(d, ast.Name) and d.id == "detached" for d in node.decorator_list):
            yield node.lineno, f"def {node.name} without @detached"
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg not in CALLBACKS:
                continue
            for inner in ast.walk(keyword.value):
                if isinstance(inner, ast.Lambda):
                    yield inner.lineno, f"a lambda as {keyword.arg}"
                elif isinstance(inner, ast.Name) and inner.id in own:
                    yield inner.lineno, f"the page's own {inner.id} as {keyword.arg}"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_no_page_gives_a_widget_its_own_function(path: Path) -> None:
    found = list(own_function_uses(path))
    assert not found, f"{path.name}: " + "; ".join(f"line {line}: {what}" for line, what in found) + \
        " (define it in ui/widgets.py, or decorate it @detached)"


def test_the_source_check_sees_the_old_patterns(tmp_path: Path) -> None:
    old = tmp_path / "old.py"
    old.write_text("def pick(s):\n    return s\n\n"
                   "st.multiselect('Heads', [1], format_func=lambda h: f'head {h}')\n"
                   "st.selectbox('Preset', [], on_change=pick)\n"
                   "st.plotly_chart(f, on_select=partial(pick, 'k'))\n")
    assert [line for line, _ in own_function_uses(old)] == [1, 4, 5, 6]


def test_detached_keeps_only_what_the_function_reads() -> None:
    page = {"__builtins__": __builtins__, "small": 3, "big": bytearray(10**6)}
    exec("def view(x):\n    return [small + x + len(str(i)) for i in range(2)]", page)  # noqa: S102
    view = detached(page["view"])
    assert view(1) == [5, 5] and set(view.__globals__) == {"__builtins__", "__name__", "small"}
    exec("def later():\n    return undefined_yet", page)  # noqa: S102
    with pytest.raises(NameError, match="undefined_yet"):
        detached(page["later"])


def page_namespaces() -> list[str]:
    """The page scripts whose namespace (a module dict, ``__file__`` in pages/) is alive now."""
    return [d["__file__"] for d in gc.get_objects()
            if type(d) is dict and str(d.get("__file__", "")).startswith(str(ROOT / "pages"))]


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "pages").glob("*.py")))
@pytest.mark.slow
def test_a_page_run_leaves_no_namespace_behind_in_its_session(page: str) -> None:
    """With the session still open, and without a garbage collection: the namespace was freed as the run
    ended (no session reference, no cycle)."""
    gc.unfreeze()  # what earlier tests' preloads froze is collected too
    gc.collect()
    gc.disable()
    try:
        at = open_page(f"pages/{page}")
        gc.unfreeze()  # what a preload froze meanwhile (ui.warm.freeze_long_lived) is listed too
        alive = page_namespaces()
    finally:
        gc.enable()
    assert at.session_state is not None and not alive, f"{page}: the namespace of {alive} outlived its run"
