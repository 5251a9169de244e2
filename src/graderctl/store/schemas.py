"""JSON Schemas of every file format, generated from the pydantic models and shipped in the package
(``graderctl/schemas/<name>.schema.json``).

``SCHEMAS`` is the one registry: add a model here and run ``graderctl schema --write`` to ship its schema.
``tests/store/test_schemas.py`` fails when the shipped files differ from what the models generate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from graderctl.errors import InvalidInputError, Problem
from graderctl.models.calset import (
    ClaimSupportSample,
    CorpusDocument,
    CoverageSample,
    SetManifest,
    SourceExistenceSample,
)
from graderctl.models.comparison import ComparisonReport
from graderctl.models.grader import GraderSpec
from graderctl.models.imports import ImportSummary
from graderctl.models.listing import ProjectListing
from graderctl.models.metrics import MetricsDocument
from graderctl.models.probe import ProbeReport, ProbesDocument
from graderctl.models.report_site import ReportSite
from graderctl.models.reports import CalibrationBatch, CalibrationCheck, CalibrationReport
from graderctl.models.results import GradedResult, ScoreSummary, TrialsImportSummary
from graderctl.models.review import ReviewItem, SetsAddSummary
from graderctl.models.schemas import SchemaEntry, SchemasDocument, Staleness
from graderctl.models.trials import Trial
from graderctl.models.tuning import LedgerEntry, TuneResult
from graderctl.models.units import UnitsDocument
from graderctl.models.validation import ErrorDocument, ValidationReport
from graderctl.store.atomic import atomic_write_many

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
SUFFIX = ".schema.json"
REGENERATE = "graderctl schema --write"

#: Schema name -> (model, what it describes). The file is ``<name>.schema.json``.
SCHEMAS: dict[str, tuple[type[BaseModel], str]] = {
    "grader": (GraderSpec, "A grader definition, graders/<name>/v<N>.toml."),
    "set-manifest": (SetManifest, "A calibration set's manifest.toml."),
    "sample-source_existence": (
        SourceExistenceSample,
        "One line of samples.jsonl in a source_existence calibration set.",
    ),
    "sample-claim_support": (
        ClaimSupportSample,
        "One line of samples.jsonl in a claim_support calibration set.",
    ),
    "sample-coverage": (
        CoverageSample,
        "One line of samples.jsonl in a coverage calibration set.",
    ),
    "corpus-document": (CorpusDocument, "One line of a calibration set's corpus.jsonl."),
    "trial": (Trial, "One line of an agent-trials file, the input of `graderctl score`."),
    "graded-result": (
        GradedResult,
        "One line of a graded-results file (and of RESULTS.partial while `score` runs), the output of "
        "`score` and `trials import --results-output`, the input of `metrics`.",
    ),
    "score-summary": (
        ScoreSummary,
        "What `graderctl score --format json` prints: counts over the results written, the graders and "
        "the rule.",
    ),
    "trials-import-summary": (
        TrialsImportSummary,
        "What `graderctl trials import inspect|jsonl --format json` prints: the files written and counts.",
    ),
    "units": (
        UnitsDocument,
        "What each check would grade, per trial: the document `graderctl units --format json` prints.",
    ),
    "metrics": (MetricsDocument, "The document `graderctl metrics --format json` prints."),
    "probe-report": (
        ProbeReport,
        "A probe report, reports/probes/<set>/<name>@<version>-<probe>.json, and what `graderctl probe "
        "--format json` prints when one probe ran on one set.",
    ),
    "probes": (
        ProbesDocument,
        "What `graderctl probe --format json` prints when several probes (or sets) ran: every report.",
    ),
    "calibration-report": (
        CalibrationReport,
        "The JSON calibration report written by `graderctl calibrate`.",
    ),
    "calibration-batch": (
        CalibrationBatch,
        "What `graderctl calibrate --format json` prints over several sets or with --all: every report run "
        "and the pairs whose grader could not run.",
    ),
    "calibration-check": (
        CalibrationCheck,
        "What `graderctl calibrate --check --format json` prints: whether each shipped report is current.",
    ),
    "import-summary": (
        ImportSummary,
        "What `graderctl sets import --format json` prints: the calibration set written from a public "
        "dataset, its size and the upstream records left out.",
    ),
    "validation": (
        ValidationReport,
        "What `graderctl validate --format json` prints: every file checked and every problem found "
        "(file, line, JSON pointer, expected, got, fix).",
    ),
    "listing": (
        ProjectListing,
        "What `graderctl list --format json` prints: graders with their trust on each set of their check, "
        "calibration sets and the installed grader kinds.",
    ),
    "report-site": (
        ReportSite,
        "What `graderctl report --format json` prints: the index and every HTML page written, with its "
        "source report and verdict.",
    ),
    "comparison-report": (
        ComparisonReport,
        "The JSON comparison report written by `graderctl compare`, reports/comparisons/<old>--<new>.json.",
    ),
    "tune-result": (
        TuneResult,
        "The JSON document `graderctl tune --format json` prints: the trade-off on the tune split, the "
        "chosen operating point and the new version written.",
    ),
    "review-item": (
        ReviewItem,
        "One line of a review file written by `graderctl score` (units left undecided, contested or "
        "errored), "
        "labelled by a person and read by `graderctl sets add`.",
    ),
    "sets-add": (
        SetsAddSummary,
        "What `graderctl sets add SET --from REVIEWED --format json` prints: the reviewed units added to the "
        "set as samples and its version before and after.",
    ),
    "certify-ledger-entry": (
        LedgerEntry,
        "One line of reports/<set>/ledger.jsonl: a calibration of a grader version on a certify split.",
    ),
    "error": (
        ErrorDocument,
        "What any command prints on stdout with `--format json` when it refuses or fails (exit 2 to 6, "
        "130): the exit code, the error and each problem found in the input.",
    ),
    "schemas": (
        SchemasDocument,
        "What `graderctl schema --format json` prints: every registered schema (with --write: the files "
        "changed; with --check: the stale ones).",
    ),
}


def names() -> list[str]:
    return list(SCHEMAS)


def _unknown(name: str) -> InvalidInputError:
    return InvalidInputError(
        f"unknown schema {name!r}",
        [
            Problem(
                file="<command line>",
                message=f"unknown schema {name!r}",
                expected="one of: " + ", ".join(SCHEMAS),
                got=repr(name),
                fix="run `graderctl schema` to list them",
            )
        ],
    )


def generate_one(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one registered format."""
    if name not in SCHEMAS:
        raise _unknown(name)
    model, description = SCHEMAS[name]
    body = model.model_json_schema(mode="validation")
    schema: dict[str, Any] = {
        "$schema": JSON_SCHEMA_DIALECT,
        "$comment": f"Generated from graderctl's {model.__module__}.{model.__qualname__} by `{REGENERATE}`; "
        "do not edit by hand.",
        "title": body.pop("title", name),
        "description": description,
    }
    body.pop("description", None)
    schema.update(body)
    return schema


def generate() -> dict[str, dict[str, Any]]:
    """Every registered schema, by name."""
    return {name: generate_one(name) for name in SCHEMAS}


def render(schema: dict[str, Any]) -> str:
    """The exact text of a shipped schema file."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def schema_path(name: str, folder: Path | None = None) -> Path:
    return (folder or SCHEMA_DIR) / f"{name}{SUFFIX}"


def shipped(folder: Path | None = None) -> dict[str, str]:
    """The text of every shipped schema file, by name."""
    base = folder or SCHEMA_DIR
    if not base.is_dir():
        return {}
    return {
        p.name.removesuffix(SUFFIX): p.read_text(encoding="utf-8") for p in sorted(base.glob(f"*{SUFFIX}"))
    }


def stale(folder: Path | None = None) -> dict[str, Staleness]:
    """Shipped schemas that differ from the generated ones, by name: "missing", "differs" or "not generated"
    (a file whose schema is no longer registered)."""
    have = shipped(folder)
    out: dict[str, Staleness] = {}
    for name, schema in generate().items():
        if name not in have:
            out[name] = "missing"
        elif have[name] != render(schema):
            out[name] = "differs"
    for name in have:
        if name not in SCHEMAS:
            out[name] = "not generated"
    return out


def write(folder: Path | None = None) -> list[str]:
    """(Re)write every shipped schema file and remove files of schemas no longer registered; returns what
    changed."""
    base = folder or SCHEMA_DIR
    changes = stale(base)
    texts = {schema_path(name, base): render(schema) for name, schema in generate().items()}
    atomic_write_many(
        {path: text for path, text in texts.items() if path.name.removesuffix(SUFFIX) in changes}
    )
    for name, what in changes.items():
        if what == "not generated":
            schema_path(name, base).unlink()
    return sorted(changes)


def listing(folder: Path | None = None) -> SchemasDocument:
    """Every registered schema: its file, model, description and whether the shipped file is up to date."""
    out_of_date = stale(folder)
    return SchemasDocument(
        schemas=[
            SchemaEntry(
                name=name,
                file=str(schema_path(name, folder)),
                model=f"{model.__module__}.{model.__qualname__}",
                description=description,
                up_to_date=name not in out_of_date,
            )
            for name, (model, description) in SCHEMAS.items()
        ]
    )


def load(name: str, folder: Path | None = None) -> dict[str, Any]:
    """A shipped schema, parsed."""
    path = schema_path(name, folder)
    if name not in SCHEMAS or not path.is_file():
        raise _unknown(name)
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def validator(name: str, folder: Path | None = None) -> Any:
    """A ``jsonschema`` validator for a shipped schema (jsonschema is imported only here)."""
    from jsonschema import Draft202012Validator

    schema = load(name, folder)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)
