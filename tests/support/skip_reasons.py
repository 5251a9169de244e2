"""A pytest plugin (loaded by tests/conftest.py): a test skipped without a reason fails instead.

Every skip must say why it skips and what would make the test run (issue 11, item 20): ``pytest.skip()``
with no message, ``@pytest.mark.skip`` without ``reason=``, a ``skipif`` whose condition is a string and no
reason, all turn into a failure naming the test. ``pytest.importorskip`` without ``reason=`` gives pytest's
own "could not import" message, which says what is missing, but the project's tests give a reason there
too (tests/test_user_messages.py checks the calls)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

#: What pytest reports as the reason of a skip that was given none.
NO_REASON = {"", "Skipped", "unconditional skip", "<Skipped instance>"}


def skip_reason(report: pytest.TestReport) -> str | None:
    """The reason of a skipped report (None: the report is not a skip)."""
    if not report.skipped or hasattr(report, "wasxfail"):
        return None
    longrepr: Any = report.longrepr
    text = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
    return text.removeprefix("Skipped:").strip()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    reason = skip_reason(report)
    if reason is None:
        return
    if reason in NO_REASON or reason.startswith("condition: "):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} was skipped without a reason ({reason or 'no message'}): give the skip a message "
            "(pytest.skip('why'), reason='why') saying why it skips and what makes the test run"
        )
