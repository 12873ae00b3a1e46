"""The shape every page follows, checked from the source: the core never imports streamlit and has no
import cycle; pages do no numeric work, decide no number and cache nothing; the page registry lists exactly the
page files."""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from page_checks import checks

from bertviz_core.views.page_registry import PAGES, PageEntry, page

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "bertviz_core"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The bertviz_core modules a file imports, at any depth (TYPE_CHECKING and function-level imports too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}  # `from pkg import module`
    return {name for name in found if name in known}


def core_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in CORE.rglob("*.py")}
    return {name: imports_of(path, set(files)) - {name} for name, path in files.items()}


def test_the_core_never_imports_streamlit() -> None:
    for path in CORE.rglob("*.py"):
        assert not re.search(r"^\s*(import|from)\s+streamlit", path.read_text(encoding="utf-8"), re.M), path


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """For each module that can reach itself through imports, one such path."""
    found = []
    for start in graph:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            if start in graph[node]:
                found.append(path + [start])
                break
            stack.extend((nxt, path + [nxt]) for nxt in graph[node] if nxt not in path)
    return found


def test_no_core_module_imports_a_module_that_imports_it_back() -> None:
    graph = core_graph()
    assert "bertviz_core.model.encoding" in graph["bertviz_core.model.encoder"]  # the parser sees imports
    assert not cycles(graph), "import cycles: " + "; ".join(" -> ".join(c) for c in cycles(graph))


def test_the_cycle_check_sees_type_checking_imports_and_cycles(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from bertviz_core import b\n")
    b.write_text("if TYPE_CHECKING:\n    from bertviz_core.a import x\n")
    graph = {"bertviz_core.a": imports_of(a, {"bertviz_core.b"}), "bertviz_core.b": imports_of(b, {"bertviz_core.a"})}
    assert [len(c) for c in cycles(graph)] == [3, 3] and not cycles({"x": {"y"}, "y": set()})


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.py")), ids=lambda p: p.name)
def test_pages_do_no_numeric_work_and_cache_nothing(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    for pattern in ("cache_data", "cache_resource", r"np\.", "numpy", "import torch", "sklearn"):
        assert not re.search(pattern, source), f"{path.name} uses {pattern}: that belongs in bertviz_core or ui/"


# ---- pages decide nothing numeric (issue #28) ----------------------------------------------------------------
# A number a page computes or judges (a default, a count, a threshold, a NaN test, a verdict's wording) belongs
# in bertviz_core (page_views, or the concept's module) or, for presentation, in the ui layer.

ARITHMETIC = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
              ast.Pow: "**"}
ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
# Calls that compute or judge numbers: extremes, sums, rounding, counting, NaN tests (functions or pandas methods).
NUMERIC_CALLS = {"min", "max", "round", "abs", "sum", "divmod", "pow", "isna", "notna", "isnull", "notnull", "isnan",
                 "isfinite", "mean", "median", "std", "var", "quantile", "nunique", "value_counts", "idxmax",
                 "idxmin", "argmax", "argmin", "nlargest", "nsmallest", "cumsum", "clip", "rank"}
TEXT_CALLS = {"str", "repr", "format", "join", "tuple", "list", "literal", "capitalize", "lower", "upper", "strip"}
# The allowlist, by kind of place, never by line. A number literal may stand only
LAYOUT_CALLS = {"columns", "tabs"}  # in a layout call: st.columns([2, 1]), ui.layout.present.columns(2) share a row
LAYOUT_KEYWORDS = {"height", "width", "panel_px", "max_chars", "start"}  # as a size, an input's limit, or enumerate's
# first number; as a widget's own range, step or start (its positional arguments): what a visitor may set, in the
# URL, the page deciding nothing from it;
WIDGETS = {"slider", "int_slider", "number_input", "choose"}
SMALL = {0, 1}  # or as 0 or 1 ("none", "first", "one"), except as a default's index= (a registry position);
# and in a subscript or slice: which items are laid out (t[:50] is still caught by its len(t) > 50).


def is_number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, complex)


def call_name(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def is_text(node: ast.AST) -> bool:
    """Whether an operand is plainly text or a sequence, so that + joins and % formats: no arithmetic."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    if isinstance(node, (ast.JoinedStr, ast.List, ast.Tuple, ast.ListComp)):
        return True
    if isinstance(node, ast.IfExp):
        return is_text(node.body) or is_text(node.orelse)
    if isinstance(node, ast.BinOp):
        return is_text(node.left) or is_text(node.right)
    if isinstance(node, ast.BoolOp):
        return any(is_text(value) for value in node.values)
    return isinstance(node, ast.Call) and call_name(node) in TEXT_CALLS


def allowed_number(node: ast.Constant, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether a number literal stands where the allowlist's kinds allow it (see above)."""
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.keyword) and parent.arg in LAYOUT_KEYWORDS:
            return True
        if isinstance(parent, ast.keyword) and parent.arg == "index":
            return node.value == 0
        if isinstance(parent, ast.Subscript) and child is parent.slice:
            return True
        if isinstance(parent, ast.Call) and (call_name(parent) in LAYOUT_CALLS
                                             or call_name(parent) in WIDGETS and child in parent.args):
            return True
        if isinstance(parent, (ast.stmt, ast.Call, ast.BinOp, ast.Compare)):
            break
        child, parent = parent, parents.get(parent)
    return node.value in SMALL


def numeric_decisions(source: str) -> list[str]:
    """Every place in a page's source that computes or judges a number, as "line N: what"."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
            if not (is_text(node.left) or isinstance(node.op, ast.Add) and is_text(node.right)):
                found.append(f"{where}: arithmetic {ast.unparse(node)}")
        elif isinstance(node, ast.AugAssign):
            found.append(f"{where}: arithmetic {ast.unparse(node)}")
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, a, b in zip(node.ops, operands, operands[1:]):
                if isinstance(op, ORDER):
                    found.append(f"{where}: order comparison {ast.unparse(node)}")
                elif isinstance(op, (ast.Eq, ast.NotEq)) and ast.dump(a) == ast.dump(b):
                    found.append(f"{where}: NaN rule {ast.unparse(node)}")
                elif isinstance(op, (ast.Eq, ast.NotEq)) and (is_number(a) or is_number(b)):
                    found.append(f"{where}: compares with a number {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and (call_name(node) in NUMERIC_CALLS or call_name(node) == "sorted"
                                             and any(k.arg == "key" for k in node.keywords)):
            found.append(f"{where}: numeric call {ast.unparse(node)}")
        elif is_number(node) and not allowed_number(node, parents):
            found.append(f"{where}: the number {node.value!r}")
    return sorted(set(found), key=lambda hit: int(hit.split()[1].rstrip(":")))


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.py")), ids=lambda p: p.name)
def test_pages_decide_nothing_numeric(path: Path) -> None:
    found = numeric_decisions(path.read_text(encoding="utf-8"))
    assert not found, (f"{path.name} decides numbers; move each into bertviz_core (page_views or the concept's "
                       "module) or, for presentation, the ui layer:\n" + "\n".join(found))


def test_the_numeric_check_sees_decisions_and_lets_layout_through() -> None:
    caught = """
if score > 0.5: pass
share = done / total
done += 1
faith = "none" if trust != trust else "some"
layers = sorted({0, n // 2, max(0, n - 1), n})
words = tokens["word_index"].dropna().nunique()
pick = st.radio("Correction", names, index=2)
text = t[:50] + ("…" if len(t) > 50 else "")
"""
    hits = numeric_decisions(caught)
    assert {int(hit.split()[1].rstrip(":")) for hit in hits} == set(range(2, 10)), hits  # every line is caught
    assert "line 5: NaN rule trust != trust" in hits and "line 8: the number 2" in hits
    layout = """
left, right = st.columns([2, 1])
table(frame, key="t", height=420)
k = c3.slider("Neighbours (k)", 1, 50, 10, key="k")
name = f"{number}: {text}" + (" (one vector)" if single else "") + "%s" % word
label = "%d items" % count
first = texts[:2]
for m, one in enumerate(lenses, start=1): pass
"""
    assert numeric_decisions(layout) == []


# Core calls that search or fit: from a page they go through ui's cached wrappers, not again on every rerun.
UNCACHED_WORK = {"compare", "nearest_tokens", "nearest_sentences"}


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.py")), ids=lambda p: p.name)
def test_pages_call_searches_and_fits_through_the_ui_cache(path: Path) -> None:
    imported = {alias.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bertviz_core")
                for alias in node.names}
    assert not imported & UNCACHED_WORK, f"{path.name} calls {imported & UNCACHED_WORK} itself: use ui's wrapper"


def test_the_page_registry_lists_exactly_the_page_files() -> None:
    files = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
    assert {entry.file for entry in PAGES} == files
    assert len({entry.title for entry in PAGES}) == len(PAGES) and all(entry.question for entry in PAGES)
    assert PAGES[0].url_path == "" and page("tokenization").file == "pages/tokenization.py"
    with pytest.raises(ValueError, match="tokenization"):
        page("no_such_page")


def test_every_page_declares_its_checks_in_its_own_test_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loops over the registry (tests and benches) read each page's checks from its test module, so a new page
    needs nothing beyond its file, its entry and its test; a page without them is named."""
    for entry in PAGES:
        assert (ROOT / "tests" / "pages" / f"test_{Path(entry.file).stem}_page.py").is_file(), entry.file
        assert all(kind in SETTING_KINDS for kind, _, _ in checks(entry).settings), entry.file
    new = PageEntry("pages/not_yet_tested.py", "New", "*", "?")
    with pytest.raises(LookupError, match="tests/pages/test_not_yet_tested_page.py"):
        checks(new)
    monkeypatch.setattr(sys.modules["test_tokenization_page"], "CHECKS", None)
    with pytest.raises(LookupError, match="declares no CHECKS"):
        checks(page("tokenization"))


SETTING_KINDS = {"toggle", "number_input", "session_state", "slider", "selectbox", "multiselect", "radio"}


def test_the_encoder_class_stays_small() -> None:
    """The Encoder runs the model and hands out its arrays; what a page makes of them lives in its own module."""
    tree = ast.parse((ROOT / "bertviz_core" / "model" / "encoder.py").read_text(encoding="utf-8"))
    (encoder,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Encoder"]
    assert encoder.end_lineno - encoder.lineno + 1 < 200
