"""No import runs up a layer: the package's modules form layers, and each imports only its own or lower.

The layers, bottom to top: foundation (errors, the trace contract, rule packs, logging), detectors
(numeric, conditional, golden, the judges), stages (flags, metrics, sampling, the review store), the
runtime (pipeline, sources, loop, web app), and the entry points (command lines, the composition root).
Imports under ``if TYPE_CHECKING:`` are types only and do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "monitor"

# Module or package prefix -> layer; the longest matching prefix decides.
LAYERS: dict[str, int] = {
    **dict.fromkeys(
        "monitor monitor.exceptions monitor.logging monitor.decode monitor.peers monitor.trace "
        "monitor.message monitor.pii monitor.rulepacks monitor.http monitor.verdicts monitor.progress "
        "monitor.embeddings monitor.otlp monitor.config".split(),
        0,
    ),
    **dict.fromkeys(
        "monitor.numeric monitor.conditional monitor.golden monitor.retrieval monitor.signals "
        "monitor.reference monitor.triad monitor.judge monitor.budget".split(),
        1,
    ),
    **dict.fromkeys(
        "monitor.flags monitor.metrics monitor.sampling monitor.feedback_window monitor.sampler "
        "monitor.assessment monitor.summary monitor.dead_letter monitor.sinks monitor.assembly "
        "monitor.review monitor.evaluation_export".split(),
        2,
    ),
    **dict.fromkeys(
        "monitor.pipeline monitor.sources monitor.loop monitor.server monitor.gate monitor.simulate "
        "monitor.web".split(),
        3,
    ),
    **dict.fromkeys(
        "monitor.app monitor.cli monitor.judge.eval_cli monitor.review.cli monitor.gate.cli "
        "monitor.web.serve".split(),
        4,
    ),
}
NAMES = ("foundation", "detectors", "stages", "runtime", "entry points")


def layer(module: str) -> int:
    """The layer of a dotted module name (its longest listed prefix)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise KeyError(module)


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def runtime_imports(path: Path) -> set[str]:
    """The ``monitor`` modules a file imports at run time (anywhere in it, TYPE_CHECKING blocks aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m == "monitor" or m.startswith("monitor.")}


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer() -> None:
    """A new module or package is placed in a layer here (an unlisted one fails, not passes)."""
    unplaced = []
    for path in MODULES:
        try:
            layer(_module(path))
        except KeyError:
            unplaced.append(_module(path))
    assert unplaced == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: _module(p))
def test_no_import_runs_up_a_layer(path: Path) -> None:
    """Each module imports only modules of its own layer or below."""
    own = layer(_module(path))
    upward = sorted(f"{m} ({NAMES[layer(m)]})" for m in runtime_imports(path) if layer(m) > own)
    assert upward == [], f"{_module(path)} ({NAMES[own]}) imports up: {upward}"


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The reader finds run-time imports, function-level ones too, and leaves TYPE_CHECKING ones out."""
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import monitor.trace\n"
        "if TYPE_CHECKING:\n"
        "    from monitor.pipeline import Pipeline\n"
        "def f():\n"
        "    from monitor.loop import Engine\n",
        encoding="utf-8",
    )
    assert runtime_imports(source) == {"monitor.trace", "monitor.loop"}
    assert layer("monitor.loop") > layer("monitor.numeric.rules")
    assert layer("monitor.review.cli") == 4 and layer("monitor.review.store") == 2
