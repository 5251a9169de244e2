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


MIXED = [
    {
        "task_id": "m",
        "trial_id": "structured",
        "task": {"question": "q", "nuggets": [{"text": "n1"}, {"text": "n2", "importance": "okay"}]},
        "report": {
            "text": "x",
            "claims": [
                {
                    "id": "a",
                    "text": "Claim a.",
                    "citations": [
                        {"source_id": "s1", "quote": "q1"},
                        {"source_id": "s2"},
                        {"source_id": "zz"},
                        {"url": "https://e.org/x?utm_source=a", "doi": "DOI:10.1/ABC", "title": "T"},
                    ],
                },
                {"id": "b", "text": "Claim b."},
            ],
            "sources": [
                {"id": "s1", "url": "https://example.org/a", "doi": "10.1000/X", "title": "S1"},
                {"id": "s2", "title": "No url", "text": "captured text"},
            ],
        },
    },
    {
        "task_id": "m",
        "trial_id": "waived",
        "task": {"question": "q", "requires_citations": False},
        "report": {"text": "Sales rose 5% in 2024.\n"},
    },
    {"task_id": "m", "trial_id": "raw", "task": {"question": "q"}, "report": {"text": REPORT}},
    {"task_id": "m", "trial_id": "empty", "task": {"question": "q"}, "report": {"text": ""}},
]


def test_every_kind_of_units_document_validates_against_the_shipped_schema(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Structured and raw reports, quotes, nuggets (coverage), missing sources, waived and empty trials: the
    printed document validates against the shipped schema, which says exactly what it holds (every key is
    required, none other allowed)."""
    trials = tmp_path / "trials.jsonl"
    trials.write_text("".join(json.dumps(row) + "\n" for row in MIXED))
    code, out, err = run(capsys, tmp_path, "units", str(trials), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    validator = schemas.validator("units")
    validator.validate(doc)
    checks = {t["trial_id"]: t["checks"] for t in doc["trials"]}
    assert checks["structured"]["coverage"]["units"][0]["input"]["nuggets"][1]["importance"] == "okay"
    assert checks["waived"]["source_existence"]["note"].endswith("not required by the task")
    assert not checks["raw"]["coverage"]["applies"]
    claim = doc["trials"][0]["claims"][0]
    del claim["citations"][0]["quote"]
    assert not validator.is_valid(doc)  # a key left out
    claim["citations"][0].update(quote="q1", extra=True)
    assert not validator.is_valid(doc)  # a key not in the schema
