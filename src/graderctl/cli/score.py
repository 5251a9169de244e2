"""``graderctl score``"""

from __future__ import annotations

from graderctl.errors import UsageError


def score() -> None:
    """Not yet available."""
    raise UsageError("`graderctl score` is not implemented yet")
