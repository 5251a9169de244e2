"""graderctl: tell whether a grader can be trusted before it scores AI-agent trials.

Python API (imported lazily, so ``import graderctl`` stays light):

``graderctl.calibrate(grader, set=None, *, root=None, jobs=1, write=True)``
    Run a grader (``"name@version"``, ``"name"`` for the newest version, or a path to its ``v<N>.toml``)
    over a calibration set (a name or a folder) and return the
    :class:`graderctl.models.reports.CalibrationReport`; without ``set``, over every set of the grader's
    check, returning a list of reports. Writes ``reports/<set>/<name>@<version>.json`` and ``.md`` unless
    ``write=False``. ``report.trusted`` says whether the grader meets the set's policy. Raises
    ``graderctl.errors.InvalidInputError`` for bad input and ``graderctl.errors.GraderRunError`` when the
    grader cannot run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["__version__", "calibrate"]

if TYPE_CHECKING:
    from graderctl.services.calibrate import api_calibrate as calibrate


def __getattr__(name: str) -> Any:
    if name == "calibrate":
        from graderctl.services.calibrate import api_calibrate

        return api_calibrate
    raise AttributeError(f"module 'graderctl' has no attribute {name!r}")
