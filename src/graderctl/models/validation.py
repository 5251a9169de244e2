"""What ``graderctl validate --format json`` prints: every file checked and every problem found."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from graderctl.models.base import OpenModel


class CheckedFile(OpenModel):
    """One file or set folder validated."""

    #: Relative to the project root when inside it.
    path: str
    #: What it was checked as: grader, set, corpus, trials, results, samples, manifest, review or unknown.
    type: str
    ok: bool
    problems: int = 0
    detail: str = ""
    #: Fingerprint of a valid grader definition or calibration set.
    fingerprint: str | None = None
    #: Records read (samples of a set, lines of a trials/results/corpus file).
    records: int | None = None


class ProblemRecord(OpenModel):
    """One problem, located precisely enough for a person to fix it (``graderctl.errors.Problem``)."""

    file: str
    line: int | None = None
    #: JSON pointer into the record ("" for the whole record or file).
    pointer: str = ""
    message: str
    expected: str | None = None
    got: str | None = None
    fix: str | None = None


class ValidationReport(OpenModel):
    schema_version: Literal[1] = 1
    type: Literal["validation"] = "validation"
    #: No problem found (none listed and none left out).
    ok: bool
    files: list[CheckedFile] = Field(default_factory=list)
    #: Up to ``--max-problems``; the rest are counted in ``omitted_problems``.
    problems: list[ProblemRecord] = Field(default_factory=list)
    problem_count: int
    omitted_problems: int = 0
    notes: list[str] = Field(default_factory=list)
    #: Grader versions recorded in ``graders/graders.lock`` by ``--update-lock``.
    lock_added: list[str] = Field(default_factory=list)


class ErrorDocument(OpenModel):
    """What a command prints on stdout with ``--format json`` when it refuses or fails (exit 2 to 6, or 130
    when interrupted): one document, whatever the command."""

    schema_version: Literal[1] = 1
    type: Literal["error"] = "error"
    #: The command's exit code.
    exit_code: int
    #: The error in words (also printed on stderr).
    error: str
    #: Each problem found in the input (exit 3), located for a person to fix; empty for other errors.
    problems: list[ProblemRecord] = Field(default_factory=list)
