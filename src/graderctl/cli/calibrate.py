"""``graderctl calibrate``"""

from __future__ import annotations

from graderctl.errors import UsageError


def calibrate() -> None:
    """Not yet available."""
    raise UsageError("`graderctl calibrate` is not implemented yet")
