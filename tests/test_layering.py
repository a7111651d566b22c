"""The packages depend on each other in one direction: a new import against it fails here.

    config (wiring) → chat → plans → knowledge → accounts → core → baeum

``baeum`` is machinery without Django; ``core`` is shared application code (errors, pagination,
providers) that imports no app; ``config`` is settings, URLs, Celery and gunicorn, imported by nobody.
Imports inside functions count as much as those at the top: a lazy import is still a dependency.
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
    "knowledge": {"accounts", "core", "baeum"},
    "plans": {"knowledge", "accounts", "core", "baeum"},
    "chat": {"plans", "knowledge", "accounts", "core", "baeum"},
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
    assert not wrong, "imports against the layering (README, Layout):\n" + "\n".join(sorted(wrong))


@pytest.mark.parametrize("package", sorted(DJANGO_FREE))
def test_machinery_does_not_import_django(package):
    wrong = [str(path.relative_to(ROOT)) for path in _sources(package) if {"django", "rest_framework"} & _imports(path)]
    assert not wrong, f"{package}/ is machinery without Django: " + ", ".join(wrong)


def test_the_checker_sees_a_lazy_import(tmp_path):
    source = tmp_path / "module.py"
    source.write_text("def f():\n    from chat.models import Conversation\n    import plans.models\n")
    assert _imports(source) == {"chat", "plans"}
