"""Pydantic models: the data contract. No I/O here."""

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
