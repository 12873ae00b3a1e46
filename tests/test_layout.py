"""The house a newcomer reads at a glance, checked from the tree: the top level is the architecture, no folder of
the core or the ui layer holds more than 13 entries, modules read in one sitting, the ui layer has no import cycle
and pages import it one way, each core subpackage imports only what its docstring allows, and every name the
README's notebook uses is the core's public API."""
from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest
from test_architecture import ROOT, cycles, imports_of, module_name

import bertviz_core

TOP_LEVEL = {"app.py", "pages", "ui", "bertviz_core", "tests", "bench", "docs", "requirements.txt", "README.md",
             "Makefile", "pytest.ini"}
MAX_ENTRIES = 13  # files and folders in one folder of bertviz_core or ui
UI_MAX_LINES, CORE_MAX_LINES = 250, 300
UI_FILES = sorted((ROOT / "ui").rglob("*.py"))
CORE_FILES = sorted((ROOT / "bertviz_core").rglob("*.py"))


def tracked(paths: list[Path]) -> list[Path]:
    return [p for p in paths if "__pycache__" not in p.parts]


def test_the_top_level_is_the_architecture() -> None:
    shown = {p.name for p in ROOT.iterdir() if not p.name.startswith(".")}
    assert shown - {"__pycache__"} <= TOP_LEVEL and {"app.py", "pages", "ui", "bertviz_core"} <= shown, shown


@pytest.mark.parametrize("package", ["bertviz_core", "ui"])
def test_no_folder_holds_more_than_13_entries(package: str) -> None:
    folders = [ROOT / package, *[p for p in (ROOT / package).rglob("*") if p.is_dir() and p.name != "__pycache__"]]
    counts = {str(f.relative_to(ROOT)): len([e for e in f.iterdir() if e.name != "__pycache__"]) for f in folders}
    assert len(counts) > 3 and not {f: n for f, n in counts.items() if n > MAX_ENTRIES}, counts


@pytest.mark.parametrize(("files", "limit"), [(UI_FILES, UI_MAX_LINES), (CORE_FILES, CORE_MAX_LINES)],
                         ids=["ui", "core"])
def test_every_module_reads_in_one_sitting(files: list[Path], limit: int) -> None:
    lengths = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in tracked(files)}
    assert len(lengths) > 15  # the subpackages are seen
    assert not {name: n for name, n in lengths.items() if n > limit}, f"over {limit} lines"


def test_no_ui_module_imports_a_module_that_imports_it_back() -> None:
    files = {module_name(path): path for path in tracked(UI_FILES)}
    graph = {name: imports_of(path, set(files)) - {name} for name, path in files.items()}
    assert "ui.results" in graph["ui.cached"] and "ui.page_parts.why_similar" in graph["ui.warm.steps"]  # imports are seen
    assert not cycles(graph), cycles(graph)


def test_ui_modules_import_their_siblings_not_the_package() -> None:
    """ui/__init__ re-exports every module; a module that imported ``ui`` itself would need it half-built."""
    for path in tracked(UI_FILES):
        if path != ROOT / "ui" / "__init__.py":
            tree = ast.parse(path.read_text(encoding="utf-8"))
            assert not any(isinstance(n, ast.ImportFrom) and n.module == "ui" for n in ast.walk(tree)), path


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"], ids=lambda p: p.name)
def test_pages_import_the_ui_layer_one_way(path: Path) -> None:
    """``from ui import …`` and nothing else: every name a page uses is in ui's ``__all__``."""
    import ui

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "ui":
            assert node.module == "ui", f"{path.name}: from {node.module} import …; use from ui import …"
            assert {a.name for a in node.names} <= set(ui.__all__), path.name
        if isinstance(node, ast.Import):
            assert not any(a.name.split(".")[0] == "ui" for a in node.names), path.name


def allowed_imports(package: Path) -> set[str]:
    """The subpackages named on the ``May import:`` line of a subpackage's docstring."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    found = re.search(r"May import: ([\w, ()]*)\.", doc)
    assert found, f"{package.name}/__init__.py does not say what it may import"
    return {name.split("(")[0].strip() for name in found.group(1).split(",") if name.strip()}


SUBPACKAGES = ["model", "measures", "words", "views", "figures", "runtime"]


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_each_subpackage_imports_only_what_its_docstring_allows(name: str) -> None:
    allowed = allowed_imports(ROOT / "bertviz_core" / name) | {name}
    for path in tracked(sorted((ROOT / "bertviz_core" / name).rglob("*.py"))):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = [] if not isinstance(node, ast.Import | ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [f"{node.module}.{a.name}" for a in node.names] if node.module == "bertviz_core" else [node.module or ""]
            for module in modules:
                parts = module.split(".")
                if parts[0] == "bertviz_core" and len(parts) > 1:
                    assert parts[1] in allowed, f"{path.relative_to(ROOT)} imports {module}"


README_IMPORT = re.compile(r"^from bertviz_core import (.+)$", re.M)


def test_every_name_the_readme_imports_is_the_public_api() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    names = {n.strip().split(" ")[0] for line in README_IMPORT.findall(readme) for n in line.split("#")[0].split(",")}
    assert {"load_encoder", "open_store", "cka_matrix", "pair_attribution", "token_index"} <= names, names
    for name in sorted(names):
        assert name in bertviz_core.__all__, name
        assert getattr(bertviz_core, name) is not None


def test_the_public_api_names_where_each_name_lives() -> None:
    for name, module in bertviz_core.PUBLIC.items():
        assert getattr(bertviz_core, name) is getattr(importlib.import_module(module), name)
    with pytest.raises(AttributeError, match="no_such_name"):
        bertviz_core.no_such_name  # noqa: B018
