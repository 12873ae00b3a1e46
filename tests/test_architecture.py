"""The shape every page follows, checked from the source: the core never imports streamlit and has no
import cycle; pages do no numeric work and cache nothing; the page registry lists exactly the page files."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bertviz_core.page_registry import PAGES, page

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
    assert "bertviz_core.encoding" in graph["bertviz_core.encoder"]  # the parser sees imports
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


def test_the_page_registry_lists_exactly_the_page_files() -> None:
    files = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
    assert {entry.file for entry in PAGES} == files
    assert len({entry.title for entry in PAGES}) == len(PAGES) and all(entry.question for entry in PAGES)
    assert PAGES[0].url_path == "" and page("tokenization").file == "pages/tokenization.py"
    with pytest.raises(ValueError, match="tokenization"):
        page("no_such_page")
