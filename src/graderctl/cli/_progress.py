"""A progress bar on stderr (rate and time left) while a grader runs.

Shown only when stderr is a terminal, and never in CI (``$CI`` set), with ``--format json`` or with
``--quiet``: logs and machine-read output stay clean.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graderctl.runner import ProgressCallback


def progress_enabled(*, machine_output: bool, quiet: bool) -> bool:
    if quiet or machine_output:
        return False
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def progress_bar(label: str, *, enabled: bool) -> Iterator[ProgressCallback | None]:
    """Yield a ``progress(done, total)`` callback drawing a transient bar, or ``None`` when disabled."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("" if speed is None else f"{speed:,.0f} samples/s", style="progress.data.speed")

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with progress:
        task = progress.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield update
