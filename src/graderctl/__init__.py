"""graderctl: tell whether a grader can be trusted before it scores AI-agent trials."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
