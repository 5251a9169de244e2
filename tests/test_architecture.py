"""The layering of STYLE.md, read from the import graph of ``src/graderctl`` (``ast``, no import runs).

    cli -> services -> (store, runner, stats, render, trust_policy) -> plugin API -> models -> errors

Every module belongs to a layer (its first package under ``graderctl``); ``ALLOWED`` says which layers each
layer may import, and is itself checked to be acyclic, so an arrow that is allowed never points back up.
Imports inside functions and under ``TYPE_CHECKING`` count: a lazy import is still an arrow.

The arrows and the file I/O that exist today against these rules are listed in ``KNOWN_ARROWS`` and
``KNOWN_IO``, each with the reason it is there. A new one fails the test (move the code to the layer that owns
it: file I/O to ``store/``, text to ``render/``, statistics to ``stats/``); an entry that no longer matches
the code fails too, so the lists only shrink.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "graderctl"

#: Which layers a layer may import (its own layer always). The root package ``graderctl`` (the lazy Python
#: API facade) and ``__main__`` sit on top; ``version`` is ``graderctl.__version__``, a constant.
ALLOWED: dict[str, frozenset[str]] = {
    "errors": frozenset(),
    "version": frozenset(),
    # Package data (model_families.toml), read through importlib.resources by store.
    "data": frozenset(),
    # The data contract: pydantic models only, no I/O.
    "models": frozenset(),
    # Pure functions: rates, intervals, tests. Knows nothing of graders, reports or files.
    "stats": frozenset({"errors"}),
    # Pure text helpers below everything that reads text.
    "normalize": frozenset(),
    "htmltext": frozenset(),
    # The language layer of the rule kinds and the report parser: tokens, stems, sentences, numbers, dates.
    "language": frozenset(),
    "identity": frozenset({"errors", "models"}),
    "probes": frozenset({"errors", "models", "language"}),
    "parsing": frozenset({"errors", "models", "normalize", "htmltext", "language"}),
    # The plugin API (and registry) a third-party kind gets.
    "plugin": frozenset({"errors", "models", "normalize"}),
    # Built-in kinds use the same API as a third party: never store, services, runner or cli.
    "kinds": frozenset({"errors", "models", "normalize", "htmltext", "language", "plugin", "version"}),
    # Renderers turn models into text; they never load, compute or decide.
    "render": frozenset({"errors", "models", "version"}),
    "runner": frozenset({"errors", "models", "plugin"}),
    "store": frozenset({"errors", "models", "plugin", "normalize", "version"}),
    "trust_policy": frozenset({"errors", "models", "stats"}),
    "services": frozenset(
        {
            "errors",
            "models",
            "stats",
            "normalize",
            "htmltext",
            "identity",
            "language",
            "probes",
            "parsing",
            "plugin",
            "render",
            "runner",
            "store",
            "trust_policy",
            "version",
        }
    ),
    "cli": frozenset(
        {
            "errors",
            "models",
            "stats",
            "normalize",
            "identity",
            "parsing",
            "plugin",
            "render",
            "runner",
            "store",
            "services",
            "trust_policy",
            "version",
        }
    ),
    "__main__": frozenset({"cli"}),
    "graderctl": frozenset({"services"}),
}

#: Arrows that break ``ALLOWED`` today: (importing module, imported module) -> why it is still there.
KNOWN_ARROWS: dict[tuple[str, str], str] = {}

#: Layers that may do file I/O. ``cli`` reads what the user names (paths, --output checks); everything else
#: goes through ``store``.
IO_LAYERS = frozenset({"store", "cli"})

#: Modules that read data files shipped inside the package (importlib.resources, read only) -> which: the one
#: read they may do is ``.read_text()``; they are not file I/O in the sense of the layering.
PACKAGE_DATA_READERS: dict[str, str] = {
    "graderctl.language.vocabulary": "the packaged vocabularies (graderctl/language/data/*.txt)",
}

#: Modules outside ``IO_LAYERS`` that do file I/O today -> why (issue 12 item 2 moves them into ``store``).
KNOWN_IO: dict[str, str] = {
    "graderctl.kinds._online": "the online resolver's page cache (atomic writes of fetched pages)",
    "graderctl.kinds.command": "checks the command's working folder exists before running the program",
    "graderctl.kinds.llm_judge": "reads its prompt template through GradingContext.base_dir (plugin API)",
}

#: Third-party packages that live in one place (the rest of the tree never imports them).
THIRD_PARTY_HOMES: dict[str, tuple[str, ...]] = {
    "typer": ("graderctl.cli",),
    "rich": ("graderctl.cli", "graderctl.render"),
    "jsonschema": ("graderctl.store",),
    "httpx": ("graderctl.kinds.llm_judge", "graderctl.kinds._online"),
}

#: Calls that touch the file system: ``open()``, these methods (``Path`` and friends), and these modules.
IO_METHODS = frozenset(
    {
        "read_text",
        "write_text",
        "read_bytes",
        "write_bytes",
        "open",
        "mkdir",
        "unlink",
        "rmdir",
        "touch",
        "iterdir",
        "glob",
        "rglob",
        "exists",
        "is_file",
        "is_dir",
        "stat",
        "rename",
        "samefile",
    }
)
IO_MODULES = frozenset({"shutil", "tempfile"})
OS_IO = frozenset(
    {"replace", "rename", "remove", "unlink", "fsync", "open", "fdopen", "makedirs", "mkdir", "listdir"}
    | {"scandir", "walk", "stat"}
)


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module

    @property
    def layer(self) -> str:
        return layer_of(self.name)


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts == ["graderctl", "__version__"]:
        return "version"
    return parts[1] if len(parts) > 1 else parts[0]


def modules() -> list[Module]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.append(Module(".".join(parts), path, ast.parse(path.read_text(encoding="utf-8"))))
    return found


def imports(module: Module) -> Iterator[tuple[str, int]]:
    """Every ``graderctl`` module (or ``graderctl.__version__``) ``module`` imports, with the line."""
    is_package = module.path.name == "__init__.py"
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.name.split(".")
                if not is_package:
                    base.pop()
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target == "graderctl" or node.module is None:
                # ``from graderctl import __version__`` / ``from graderctl.pkg import module``
                for alias in node.names:
                    yield f"{target}.{alias.name}", node.lineno
            else:
                yield target, node.lineno


def our_imports(module: Module) -> Iterator[tuple[str, int]]:
    for target, line in imports(module):
        if target == "graderctl" or target.startswith("graderctl."):
            yield target, line


def third_party_imports(module: Module) -> Iterator[tuple[str, int]]:
    for target, line in imports(module):
        yield target.split(".")[0], line


def file_io(module: Module) -> list[str]:
    """The calls in ``module`` that touch the file system, as ``what@line``."""
    hits = []
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            hits.append(f"open()@{node.lineno}")
        elif isinstance(func, ast.Attribute):
            owner = func.value
            if isinstance(owner, ast.Name) and owner.id in IO_MODULES:
                hits.append(f"{owner.id}.{func.attr}()@{node.lineno}")
            elif isinstance(owner, ast.Name) and owner.id == "os":
                if func.attr in OS_IO:
                    hits.append(f"os.{func.attr}()@{node.lineno}")
            elif func.attr in IO_METHODS:
                hits.append(f".{func.attr}()@{node.lineno}")
    return hits


MODULES = modules()
BY_NAME = {m.name: m for m in MODULES}


def where(module: Module, line: int) -> str:
    return f"{module.path.relative_to(PACKAGE.parents[1])}:{line}"


def test_every_module_has_a_layer() -> None:
    unknown = sorted({m.layer for m in MODULES} - set(ALLOWED))
    assert not unknown, (
        f"modules in layers the architecture test does not know: {unknown}. "
        "Fix: add each to ALLOWED in tests/test_architecture.py with the layers it may import."
    )


def test_the_allowed_arrows_point_one_way() -> None:
    """``ALLOWED`` is a DAG: no layer can reach itself through allowed arrows (no arrow back up)."""
    state: dict[str, int] = {}

    def visit(layer: str, path: list[str]) -> None:
        state[layer] = 1
        for below in sorted(ALLOWED[layer]):
            assert state.get(below) != 1, f"cycle in ALLOWED: {' -> '.join([*path, below])}"
            if below not in state:
                visit(below, [*path, below])
        state[layer] = 2

    for layer in sorted(ALLOWED):
        if layer not in state:
            visit(layer, [layer])


def test_no_arrow_back_up() -> None:
    new = []
    for module in MODULES:
        for target, line in our_imports(module):
            to = layer_of(target)
            if to == module.layer or to in ALLOWED[module.layer]:
                continue
            if (module.name, target) in KNOWN_ARROWS:
                continue
            new.append(f"{where(module, line)}: {module.name} ({module.layer}) imports {target} ({to})")
    assert not new, (
        "imports against the layering of STYLE.md:\n  "
        + "\n  ".join(new)
        + "\nFix: move the code to the layer that owns it (file I/O -> store, text -> render, statistics ->"
        " stats, trust decisions -> trust_policy), or pass what is needed down as an argument."
    )


def test_known_arrows_still_exist() -> None:
    present = {(m.name, t) for m in MODULES for t, _ in our_imports(m)}
    stale = sorted(set(KNOWN_ARROWS) - present)
    assert not stale, f"KNOWN_ARROWS entries no longer in the code (remove them): {stale}"


@pytest.mark.parametrize(
    ("layer", "never"),
    [
        ("kinds", {"store", "services", "cli", "runner"}),
        ("stats", set(ALLOWED) - {"stats", "errors"}),
        ("models", set(ALLOWED) - {"models"}),
        ("render", {"services", "store", "cli", "runner", "stats", "trust_policy"}),
        ("plugin", {"kinds", "store", "services", "cli", "runner"}),
        ("errors", set(ALLOWED) - {"errors"}),
    ],
)
def test_style_rules_are_in_allowed(layer: str, never: set[str]) -> None:
    """The named rules of STYLE.md hold in ``ALLOWED`` (so weakening it fails here, not silently)."""
    assert not (ALLOWED[layer] & never), f"{layer} may not import {sorted(ALLOWED[layer] & never)}"


def test_file_io_lives_in_store() -> None:
    new = []
    for module in MODULES:
        if module.layer in IO_LAYERS or module.name in KNOWN_IO:
            continue
        hits = file_io(module)
        if module.name in PACKAGE_DATA_READERS:
            hits = [h for h in hits if not h.startswith(".read_text()@")]
        if hits:
            new.append(f"{module.path.relative_to(PACKAGE.parents[1])}: {', '.join(hits)}")
    assert not new, (
        "file I/O outside store/ and cli/:\n  "
        + "\n  ".join(new)
        + "\nFix: read and write through a function in graderctl.store (atomic writes: store.atomic)."
    )


def test_package_data_is_read_through_importlib_resources() -> None:
    """A package-data reader imports ``importlib.resources`` and reads, nothing else."""
    for name in PACKAGE_DATA_READERS:
        module = BY_NAME[name]
        assert "importlib" in {t for t, _ in third_party_imports(module)}, name
        hits = file_io(module)
        assert hits and all(h.startswith(".read_text()@") for h in hits), (name, hits)


def test_known_io_still_exists() -> None:
    stale = sorted(name for name in KNOWN_IO if name not in BY_NAME or not file_io(BY_NAME[name]))
    assert not stale, f"KNOWN_IO entries that no longer do file I/O (remove them): {stale}"


@pytest.mark.parametrize(
    "layer", ["models", "stats", "render", "runner", "plugin", "trust_policy", "language"]
)
def test_pure_layers_do_no_io(layer: str) -> None:
    """Belt and braces for the layers STYLE.md names as I/O-free: not even a KNOWN_IO entry."""
    assert not [name for name in KNOWN_IO if layer_of(name) == layer]
    hits = {m.name: file_io(m) for m in MODULES if m.layer == layer and m.name not in PACKAGE_DATA_READERS}
    assert not {k: v for k, v in hits.items() if v}


def test_third_party_packages_stay_in_their_lane() -> None:
    bad = []
    for module in MODULES:
        for top, line in third_party_imports(module):
            homes = THIRD_PARTY_HOMES.get(top)
            if homes and not any(module.name == h or module.name.startswith(h + ".") for h in homes):
                bad.append(f"{where(module, line)}: {top} (lives in {', '.join(homes)})")
    assert not bad, "third-party imports out of their lane:\n  " + "\n  ".join(bad)


def test_the_checker_sees_arrows() -> None:
    """The reader itself: relative and lazy imports are arrows, and a planted upward arrow is caught."""
    source = (
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "from ..store import readers\n"
        "if TYPE_CHECKING:\n"
        "    from graderctl.cli import main\n"
        "def f():\n"
        "    from graderctl import __version__\n"
        "    open('x')\n"
        "    import os\n"
        "    os.replace('a', 'b')\n"
    )
    planted = Module("graderctl.stats.planted", PACKAGE / "stats" / "planted.py", ast.parse(source))
    targets = sorted(t for t, _ in our_imports(planted))
    assert targets == ["graderctl.__version__", "graderctl.cli", "graderctl.store"]
    assert [layer_of(t) for t in targets] == ["version", "cli", "store"]
    assert all(layer_of(t) not in ALLOWED["stats"] for t in targets)
    assert sorted(file_io(planted)) == ["open()@8", "os.replace()@10"]


#: What ``graderctl.plugin`` exports from its registry half; the plugin API and the kinds never use them.
REGISTRY_NAMES = frozenset(
    {"KindRegistry", "broken_kinds", "default_registry", "get_kind", "kind_origin", "kinds", "register"}
)


def test_the_plugin_api_is_apart_from_the_registry() -> None:
    """A kind gets the API (GraderKind, Verdict, Usage, GradingContext, ...), never the registry."""
    api = BY_NAME["graderctl.plugin.api"]
    assert not [t for t, _ in our_imports(api) if t.startswith("graderctl.plugin")]
    bad = []
    for module in MODULES:
        if module.layer != "kinds" and module is not api:
            continue
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("graderctl.plugin"):
                names = {a.name for a in node.names}
                if node.module == "graderctl.plugin.registry" or names & REGISTRY_NAMES:
                    bad.append(f"{where(module, node.lineno)}: {module.name} imports {sorted(names)}")
    assert not bad, "the registry used where only the plugin API belongs:\n  " + "\n  ".join(bad)


def test_the_package_is_typed() -> None:
    assert (PACKAGE / "py.typed").is_file(), "src/graderctl/py.typed marks the package as typed (PEP 561)"
