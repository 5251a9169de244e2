"""``graderctl list``"""

from __future__ import annotations

from graderctl.errors import UsageError


def list_() -> None:
    """List graders and calibration sets."""
    raise UsageError("`graderctl list` is not implemented yet")
