"""``graderctl probe``"""

from __future__ import annotations

from graderctl.errors import UsageError


def probe() -> None:
    """Not yet available."""
    raise UsageError("`graderctl probe` is not implemented yet")
