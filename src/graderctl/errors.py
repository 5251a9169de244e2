"""Exit codes and the exception hierarchy.

This module is the bottom of the package: it imports nothing of ours. Library code raises these errors;
only ``graderctl.cli`` turns them into exit codes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes. Append-only: a code never changes meaning (CONTRACT.md §1)."""

    #: Success (``calibrate``: the grader meets the policy; ``compare``: comparable).
    OK = 0
    #: Ran fine, but the verdict is negative (policy not met; not comparable; bias found).
    NEGATIVE_VERDICT = 1
    #: Bad command-line usage.
    USAGE_ERROR = 2
    #: Invalid input data (unreadable, schema-invalid, unknown grader or set, k > n, edited released version).
    INVALID_INPUT = 3
    #: A grader could not run (endpoint down, command crashed, error rate over the limit).
    GRADER_FAILED = 4
    #: Refused by trust policy (grader not calibrated for this use, self-grading).
    REFUSED = 5
    #: Internal error (a bug).
    INTERNAL_ERROR = 6
    #: Interrupted (Ctrl-C).
    INTERRUPTED = 130


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file, located precisely enough for a person to fix it."""

    file: str
    message: str
    line: int | None = None
    pointer: str = ""
    expected: str | None = None
    got: str | None = None
    fix: str | None = None

    def format(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        parts = [where]
        if self.pointer:
            parts.append(self.pointer)
        text = ": ".join(parts) + ": " + self.message
        if self.expected is not None:
            text += f"; expected {self.expected}"
        if self.got is not None:
            text += f", got {self.got}"
        if self.fix:
            text += f". Fix: {self.fix}"
        return text

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "pointer": self.pointer,
            "message": self.message,
            "expected": self.expected,
            "got": self.got,
            "fix": self.fix,
        }


class GraderctlError(Exception):
    """Base of every error graderctl raises on purpose."""

    exit_code: ExitCode = ExitCode.INTERNAL_ERROR


class UsageError(GraderctlError):
    """The command line asks for something that cannot be done (bad option value, conflicting flags)."""

    exit_code = ExitCode.USAGE_ERROR


class InvalidInputError(GraderctlError):
    """Input data is unreadable or invalid. Carries every problem found, not only the first."""

    exit_code = ExitCode.INVALID_INPUT

    def __init__(self, message: str, problems: list[Problem] | None = None, *, omitted: int = 0) -> None:
        super().__init__(message)
        self.problems: list[Problem] = list(problems or [])
        self.omitted = omitted


class GraderRunError(GraderctlError):
    """A grader could not run at all, or erred on more samples than the policy allows."""

    exit_code = ExitCode.GRADER_FAILED


class RefusedError(GraderctlError):
    """Refused by trust policy: the grader is not trusted for this use, or it would grade its own outputs."""

    exit_code = ExitCode.REFUSED


class PluginError(GraderctlError):
    """A grader kind (built-in or third party) is malformed or registered twice."""

    exit_code = ExitCode.INVALID_INPUT


class StatisticsError(GraderctlError, ValueError):
    """A statistic was asked for with parameters that make it undefined (k > n, n = 0, ...)."""

    exit_code = ExitCode.INVALID_INPUT
