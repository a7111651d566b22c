"""The packages depend on each other in one direction: a new import against it fails here.

    config (wiring) → classroom → chat → plans → knowledge → courses → accounts → core → baeum

``baeum`` is machinery without Django; ``core`` is shared application code (errors, pagination,
providers) that imports no app; ``config`` is settings, URLs, Celery and gunicorn, imported by nobody.
Imports inside functions count as much as those at the top: a lazy import is still a dependency.

Inside ``baeum`` the stages depend on each other in one direction too:

    language ← extraction ← retrieval ← answering ← study

``errors``, ``metrics`` and ``rules`` (modules at the top) are open to every stage; ``runtime`` (the embedded servers)
only to entry points: settings and wiring, scripts, management commands, Celery tasks and tests.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Each package and the project packages it may import (besides itself).
ALLOWED = {
    "baeum": set(),
    "core": {"baeum"},
    "accounts": {"core", "baeum"},
    "courses": {"accounts", "core", "baeum"},
    "knowledge": {"courses", "accounts", "core", "baeum"},
    "plans": {"knowledge", "courses", "accounts", "core", "baeum"},
    "chat": {"plans", "knowledge", "courses", "accounts", "core", "baeum"},
    "classroom": {"chat", "plans", "knowledge", "courses", "accounts", "core", "baeum"},
}
PROJECT_PACKAGES = {*ALLOWED, "config"}
# Machinery without Django: it runs in reader children and benchmarks without settings.
DJANGO_FREE = {"baeum"}


def _imports(path: Path) -> set[str]:
    """Top-level package names ``path`` imports (absolute imports; relative ones stay inside their package)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _sources(package: str) -> list[Path]:
    return sorted(path for path in (ROOT / package).rglob("*.py") if "migrations" not in path.parts)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_the_packages_below_it(package):
    wrong = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _sources(package)
        for name in _imports(path) & PROJECT_PACKAGES
        if name != package and name not in ALLOWED[package]
    }
    assert not wrong, "imports against the layering (docs/architecture.md):\n" + "\n".join(sorted(wrong))


@pytest.mark.parametrize("package", sorted(DJANGO_FREE))
def test_machinery_does_not_import_django(package):
    wrong = [str(path.relative_to(ROOT)) for path in _sources(package) if {"django", "rest_framework"} & _imports(path)]
    assert not wrong, f"{package}/ is machinery without Django: " + ", ".join(wrong)


def test_the_checker_sees_a_lazy_import(tmp_path):
    source = tmp_path / "module.py"
    source.write_text("def f():\n    from chat.models import Conversation\n    import plans.models\n")
    assert _imports(source) == {"chat", "plans"}


# Each stage of ``baeum`` and the stages it may import (besides itself and the shared top-level modules).
STAGES = ["language", "extraction", "retrieval", "answering", "study"]
STAGE_ALLOWED = {stage: set(STAGES[:index]) for index, stage in enumerate(STAGES)} | {"runtime": set(STAGES)}
SHARED_MODULES = {"errors", "metrics", "observers", "rules"}


def _baeum_imports(path: Path) -> set[str]:
    """The ``baeum`` sub-packages or top-level modules ``path`` imports: ``from baeum.answering.x import y``
    → "answering", ``from baeum import runtime`` → "runtime"."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("baeum."))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "baeum":
                names.update(alias.name for alias in node.names)
            elif node.module.startswith("baeum."):
                names.add(node.module.split(".")[1])
    return names


def test_every_baeum_module_belongs_to_a_stage_or_is_shared():
    top = {path.stem for path in (ROOT / "baeum").glob("*.py")} - {"__init__"}
    packages = {path.parent.name for path in (ROOT / "baeum").glob("*/__init__.py")}
    assert top == SHARED_MODULES and packages == set(STAGE_ALLOWED)


@pytest.mark.parametrize("stage", sorted(STAGE_ALLOWED))
def test_baeum_stage_imports_only_the_stages_before_it(stage):
    wrong = {
        f"{path.relative_to(ROOT)} imports baeum.{name}"
        for path in _sources(f"baeum/{stage}")
        for name in _baeum_imports(path) - SHARED_MODULES
        if name != stage and name not in STAGE_ALLOWED[stage]
    }
    assert not wrong, "imports against the stages of baeum (baeum/__init__.py):\n" + "\n".join(sorted(wrong))


def _is_entry_point(path: Path) -> bool:
    parts = path.relative_to(ROOT).parts
    return parts[0] in {"config", "scripts", "tests"} or "commands" in parts or path.name == "tasks.py" or parts[:2] == ("baeum", "runtime")


def test_only_entry_points_import_the_runtime():
    wrong = [
        str(path.relative_to(ROOT))
        for package in ("baeum", *ALLOWED)
        for path in _sources(package)
        if "runtime" in _baeum_imports(path) and not _is_entry_point(path)
    ]
    assert not wrong, "baeum.runtime (the embedded servers) is for entry points only: " + ", ".join(wrong)


def test_the_stage_checker_reads_every_form_of_import(tmp_path):
    source = tmp_path / "module.py"
    source.write_text(
        "from baeum.answering.evidence import judge_evidence\ndef f():\n    from baeum import runtime, errors\n    import baeum.study.quiz\n"
    )
    assert _baeum_imports(source) == {"answering", "runtime", "errors", "study"}


def _module_graph(paths: list[Path]) -> dict[str, set[str]]:
    """Which module imports which, among ``paths`` (absolute and relative imports, lazy ones included)."""
    modules = {".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path for path in paths}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(
                        [*package.split(".")[: len(package.split(".")) - node.level + 1], *([node.module] if node.module else [])]
                    )
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and modules[target].name != "__init__.py":
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for other in graph[name]:
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == name:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def test_no_circle_of_imports_in_the_machinery_or_the_tutor():
    paths = sorted((ROOT / "baeum").rglob("*.py")) + sorted((ROOT / "chat" / "services").glob("*.py"))
    assert _cycles(_module_graph(paths)) == []


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
