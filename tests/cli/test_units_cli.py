from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.store import schemas

REPORT = (
    "Sales fell 21% in 2024 [1]. Prices fell to 115 dollars per kWh [3].\n\n"
    "## References\n1. [Heat pump tracker](https://www.iea.org/reports/heat-pumps-2024)\n"
)


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = _state.run(app, ["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, text: str) -> Path:
    row = {"task_id": "t", "trial_id": "t-1", "task": {"question": "q"}, "report": {"text": text}}
    path.write_text(json.dumps(row) + "\n")
    return path


def test_units_json_is_one_document_valid_against_its_schema(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trials = write(tmp_path / "trials.jsonl", REPORT)
    code, out, err = run(capsys, tmp_path, "units", str(trials), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, schemas.generate_one("units"))
    assert doc["type"] == "units" and doc["parser"]["name"] == "report-parser"
    claims = doc["trials"][0]["claims"]
    assert [(c["text"], [x["url"] for x in c["citations"]]) for c in claims] == [
        ("Sales fell 21% in 2024.", ["https://www.iea.org/reports/heat-pumps-2024"]),
        ("Prices fell to 115 dollars per kWh.", [None]),
    ]
    assert doc["trials"][0]["missing_sources"] == [{"claim": "c2", "marker": "[3]"}]


def test_units_text_names_missing_markers_and_no_citations(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trials = write(tmp_path / "trials.jsonl", REPORT)
    code, out, _ = run(capsys, tmp_path, "units", str(trials))
    assert code == 0
    assert "marker [3] points to no source listed" in out
    write(trials, "Heat pump sales fell by a fifth in Europe last year.")
    code, out, _ = run(capsys, tmp_path, "units", str(trials))
    assert code == 0 and "no citations found" in out and "1 uncited claim(s)" in out


def test_units_of_invalid_trials_exit_3(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "trials.jsonl"
    bad.write_text('{"task_id": "t"}\n')
    code, _, err = run(capsys, tmp_path, "units", str(bad))
    assert code == ExitCode.INVALID_INPUT and "trials.jsonl:1" in err
    code, _, err = run(capsys, tmp_path, "units", str(tmp_path / "missing.jsonl"))
    assert code == ExitCode.INVALID_INPUT
