"""What a run loads (issue 13, start-up): ``graderctl units`` imports what it uses and nothing else: not
the other commands, nor the score stack, the report and result models, the plugin API (without a corpus),
the project reader, the TOML parser or the stemmer. A module that slips back into every start-up fails here
by its name (no timing).

And the packages that import their names on first use (``graderctl.models``, ``graderctl.language``) still
give every name they export."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Runs the command line in a fresh interpreter, then writes the names of the modules it loaded.
_RUN = """
import json, os, sys
from graderctl.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
with open(os.environ["MODULES_OUT"], "w") as fh:
    json.dump(sorted(sys.modules), fh)
"""


def _loaded(tmp_path: Path, *args: str) -> set[str]:
    out = tmp_path / "modules.json"
    env = {**os.environ, "MODULES_OUT": str(out)}
    done = subprocess.run(
        [sys.executable, "-c", _RUN, *args], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(out.read_text()))


@pytest.mark.parametrize("corpus", [False, True])
def test_units_loads_only_what_it_uses(tmp_path: Path, corpus: bool) -> None:
    row = {"task_id": "t", "trial_id": "t-1", "task": {"question": "q"}, "report": {"text": "Sales [1]."}}
    trials = tmp_path / "trials.jsonl"
    trials.write_text(json.dumps(row) + "\n")
    if corpus:  # read beside the trials: the plugin API's Corpus, but still not the project reader
        (tmp_path / "corpus.jsonl").write_text(json.dumps({"id": "d1", "text": "Sales fell."}) + "\n")
    loaded = _loaded(tmp_path, "--root", str(tmp_path), "units", str(trials), "--format", "json", "-q")

    assert {"graderctl.cli.units", "graderctl.services.units", "graderctl.parsing.report"} <= loaded
    assert ("graderctl.store.corpus" in loaded) is corpus
    commands = {m for m in loaded if m.startswith("graderctl.cli.") and not m.startswith("graderctl.cli._")}
    assert commands == {"graderctl.cli.units"}, "a run builds only the command it runs"
    never = {
        "graderctl.services.score",
        "graderctl.models.reports",
        "graderctl.models.results",
        "graderctl.store.project",
        "graderctl.language.stemming",
        "tomllib",
    }
    if not corpus:
        never.add("graderctl.plugin")
    assert not (loaded & never), sorted(loaded & never)


@pytest.mark.parametrize("package", ["graderctl.models", "graderctl.language"])
def test_lazy_packages_export_every_name(package: str) -> None:
    module = importlib.import_module(package)
    homes = module._HOMES
    assert set(homes) == set(module.__all__)
    for name in module.__all__:
        home = importlib.import_module(f"{package}.{homes[name]}")
        assert getattr(module, name) is getattr(home, name), name
    with pytest.raises(AttributeError, match="no attribute 'nothing_of_that_name'"):
        _ = module.nothing_of_that_name
