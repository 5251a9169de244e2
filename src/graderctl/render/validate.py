"""What ``graderctl validate`` prints: each file's status (stderr), each problem on one line and the summary
(stdout)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graderctl.errors import Problem


def one_line(text: str) -> str:
    """A message on one line (a newline in a file's content must not start a fake line of output)."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def render_files(doc: Mapping[str, Any]) -> str:
    """Each file checked and its status (stderr: what was looked at, not the result)."""
    out = []
    for f in doc["files"]:
        status = "ok" if f["ok"] else f"{f['problems']} problem(s)"
        detail = f" [{f['detail']}]" if f["detail"] and f["ok"] else ""
        out.append(f"{f['type']:8} {f['path']}: {status}{detail}\n")
    return "".join(out)


def render_validation(doc: Mapping[str, Any]) -> str:
    """The result (stdout): each problem on one line, then the summary. ``doc``: the validation document."""
    out = [one_line(Problem(**p).format()) for p in doc["problems"]]
    if doc["omitted_problems"]:
        out.append(f"... and {doc['omitted_problems']} more problem(s) (raise --max-problems to see them)")
    out.append(validation_summary(doc))
    return "\n".join(out) + "\n"


def validation_summary(doc: Mapping[str, Any]) -> str:
    n, files = doc["problem_count"], len(doc["files"])
    return f"{files} file(s) checked, {n} problem(s)" if n else f"{files} file(s) checked: all valid"
