"""``graderctl compare``"""

from __future__ import annotations

from graderctl.errors import UsageError


def compare() -> None:
    """Not yet available."""
    raise UsageError("`graderctl compare` is not implemented yet")
