"""``graderctl metrics``"""

from __future__ import annotations

from graderctl.errors import UsageError


def metrics() -> None:
    """Not yet available."""
    raise UsageError("`graderctl metrics` is not implemented yet")
