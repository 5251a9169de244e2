"""Pydantic models: the data contract. No I/O here.

The names below are imported on first use (PEP 562), so importing one model module (``graderctl units``
needs the trials and calibration-set models, not the report or result models) does not build them all.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graderctl.models.base import Check, Label, ModelIdentity, StrictModel
    from graderctl.models.calset import (
        INPUT_MODELS,
        SAMPLE_MODELS,
        Citation,
        ClaimSupportInput,
        ClaimSupportSample,
        CorpusDocument,
        CoverageInput,
        CoverageSample,
        Evidence,
        Nugget,
        Policy,
        Sample,
        SampleInput,
        SetManifest,
        SourceExistenceInput,
        SourceExistenceSample,
    )
    from graderctl.models.grader import GraderSpec, JudgeSpec
    from graderctl.models.reports import CalibrationReport, RateEstimate, SampleOutcome
    from graderctl.models.results import CheckResult, GradedResult
    from graderctl.models.trials import Cost, Trial

#: Each public name -> the module that defines it.
_HOMES = {
    **dict.fromkeys(("Check", "Label", "ModelIdentity", "StrictModel"), "base"),
    **dict.fromkeys(
        (
            "INPUT_MODELS",
            "SAMPLE_MODELS",
            "Citation",
            "ClaimSupportInput",
            "ClaimSupportSample",
            "CorpusDocument",
            "CoverageInput",
            "CoverageSample",
            "Evidence",
            "Nugget",
            "Policy",
            "Sample",
            "SampleInput",
            "SetManifest",
            "SourceExistenceInput",
            "SourceExistenceSample",
        ),
        "calset",
    ),
    **dict.fromkeys(("GraderSpec", "JudgeSpec"), "grader"),
    **dict.fromkeys(("CalibrationReport", "RateEstimate", "SampleOutcome"), "reports"),
    **dict.fromkeys(("CheckResult", "GradedResult"), "results"),
    **dict.fromkeys(("Cost", "Trial"), "trials"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "INPUT_MODELS",
    "SAMPLE_MODELS",
    "CalibrationReport",
    "Check",
    "CheckResult",
    "Citation",
    "ClaimSupportInput",
    "ClaimSupportSample",
    "CorpusDocument",
    "Cost",
    "CoverageInput",
    "CoverageSample",
    "Evidence",
    "GradedResult",
    "GraderSpec",
    "JudgeSpec",
    "Label",
    "ModelIdentity",
    "Nugget",
    "Policy",
    "RateEstimate",
    "Sample",
    "SampleInput",
    "SampleOutcome",
    "SetManifest",
    "SourceExistenceInput",
    "SourceExistenceSample",
    "StrictModel",
    "Trial",
]
