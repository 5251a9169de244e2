"""Contract fixtures: for every registered grader kind, what the contract tests in ``test_contract.py`` need.

A new kind (built-in or registered through the ``graderctl.graders`` entry points of this project) gets an
entry in :data:`FIXTURES`: valid params, the files its definition folder holds, a corpus when it resolves
sources, a few inputs per check it can grade (with the verdict each should get, a mix of accepted and
rejected), and params its ``Params`` model must reject.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graderctl.models.base import Check
from graderctl.models.calset import (
    Citation,
    ClaimSupportInput,
    CorpusDocument,
    CoverageInput,
    Evidence,
    Nugget,
    SampleInput,
    SourceExistenceInput,
)
from graderctl.models.grader import JudgeSpec
from graderctl.plugin import Corpus

TESTS = Path(__file__).resolve().parents[1]
CONTRACT_DATA = TESTS / "data" / "contract"
COMMAND_SCRIPT = TESTS / "data" / "command" / "judge.py"


def load_corpus() -> Corpus:
    lines = (CONTRACT_DATA / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    return Corpus([CorpusDocument.model_validate_json(line) for line in lines if line.strip()])


@dataclass(frozen=True)
class Environment:
    """What fixtures may point at while the tests run (a local fake OpenAI-compatible server)."""

    llm_base_url: str


@dataclass(frozen=True)
class Case:
    """One input and whether the kind should accept it."""

    input: SampleInput
    accepted: bool


@dataclass(frozen=True)
class ContractFixture:
    #: Valid ``[params]`` (a function of the environment, for URLs of local servers).
    params: Callable[[Environment], dict[str, Any]]
    #: Params the kind's ``Params`` model must reject (a complete dict, wrong in one value).
    invalid_params: dict[str, Any]
    #: Inputs per check, each with its expected verdict; one entry per check in the kind's ``checks``.
    cases: dict[Check, Sequence[Case]]
    #: Files copied into the definition's folder (the context's ``base_dir``), by name.
    files: tuple[Path, ...] = ()
    #: Whether the grading context carries the corpus of tests/data/contract/corpus.jsonl.
    uses_corpus: bool = False
    judge: JudgeSpec | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: A composite kind's members: the kinds of other fixtures, built (and written as definitions named
    #: ``contract-<kind>``) with their own fixtures.
    member_kinds: tuple[str, ...] = ()


# --- inputs ------------------------------------------------------------------------------------------

HARBOUR_QUOTE = "Container traffic rose by 12 percent compared with the previous year."

SOURCE_CASES = (
    Case(SourceExistenceInput(citation=Citation(source_id="harbour-report", quote=HARBOUR_QUOTE)), True),
    Case(
        SourceExistenceInput(
            citation=Citation(
                url="https://example.org/orchard-study",
                quote="Orchards bordered by wildflower strips received more visits",
            )
        ),
        True,
    ),
    Case(
        SourceExistenceInput(
            citation=Citation(
                source_id="harbour-report",
                quote="The new southern quay was closed for repairs throughout the winter months.",
            )
        ),
        False,
    ),
    Case(
        SourceExistenceInput(
            citation=Citation(url="https://example.org/no-such-page", title="A Report That Does Not Exist")
        ),
        False,
    ),
)

CLAIM_CASES = (
    Case(
        ClaimSupportInput(
            claim="Container traffic at the Lindqvist harbour rose by 12 percent in 2021.",
            evidence=[Evidence(source_id="harbour-report")],
        ),
        True,
    ),
    Case(
        ClaimSupportInput(
            claim="Orchards next to wildflower strips got more bee visits than orchards without them.",
            evidence=[Evidence(text=load_corpus().documents[1].text)],
        ),
        True,
    ),
    Case(
        ClaimSupportInput(
            claim="Container traffic at the harbour rose by 40 percent in 2021.",
            evidence=[Evidence(source_id="harbour-report")],
        ),
        False,
    ),
    Case(
        ClaimSupportInput(
            claim="The Lindqvist Harbour Authority handled 9.7 million tonnes of cargo in 2019.",
            evidence=[Evidence(source_id="harbour-report")],
        ),
        False,
    ),
)

_REPORT = (
    "In 2021 the Lindqvist harbour moved 4.2 million tonnes of cargo. Container traffic grew by 12 percent "
    "on the year before. A northern quay able to take two ships opened in March."
)

COVERAGE_CASES = (
    Case(
        CoverageInput(
            question="How did the harbour do in 2021?",
            nuggets=[
                Nugget(text="The harbour handled 4.2 million tonnes of cargo in 2021"),
                Nugget(text="Container traffic rose 12 percent"),
            ],
            report=_REPORT,
        ),
        True,
    ),
    Case(
        CoverageInput(
            question="How did the harbour do in 2021?",
            nuggets=[
                Nugget(text="The harbour handled 4.2 million tonnes of cargo in 2021"),
                Nugget(text="The harbour authority appointed a new director in June"),
            ],
            report=_REPORT,
        ),
        False,
    ),
    Case(
        CoverageInput(
            question="What did the orchard study find?",
            nuggets=[Nugget(text="Wildflower strips brought more bee visits to orchards")],
            report="The orchard study was about pruning schedules and frost damage in lowland pear farms.",
        ),
        False,
    ),
)


def _marker_cases() -> dict[Check, Sequence[Case]]:
    """Inputs for the fake judges (the LLM stand-in and tests/data/command/judge.py): accepted exactly
    when the claim, citation or report holds MARKER_GOOD."""
    return {
        Check.claim_support: (
            Case(
                ClaimSupportInput(
                    claim="The quay opened in March. MARKER_GOOD", evidence=[Evidence(text="x")]
                ),
                True,
            ),
            Case(
                ClaimSupportInput(
                    claim="The quay closed in March. MARKER_BAD", evidence=[Evidence(text="x")]
                ),
                False,
            ),
            Case(
                ClaimSupportInput(
                    claim="Cargo rose. MARKER_GOOD", evidence=[Evidence(source_id="harbour-report")]
                ),
                True,
            ),
        ),
        Check.source_existence: (
            Case(
                SourceExistenceInput(citation=Citation(source_id="harbour-report", quote="MARKER_GOOD")), True
            ),
            Case(
                SourceExistenceInput(citation=Citation(url="https://example.org/x", quote="MARKER_BAD")),
                False,
            ),
        ),
        Check.coverage: (
            Case(CoverageInput(nuggets=[Nugget(text="cargo")], report="Cargo rose. MARKER_GOOD"), True),
            Case(CoverageInput(nuggets=[Nugget(text="cargo")], report="Cargo fell. MARKER_BAD"), False),
        ),
    }


# --- the registry ------------------------------------------------------------------------------------

FIXTURES: dict[str, ContractFixture] = {
    "source_existence": ContractFixture(
        params=lambda env: {"check_quote": True, "max_word_edits": 1},
        invalid_params={"check_quote": True, "max_char_edit_ratio": 0.9},
        cases={Check.source_existence: SOURCE_CASES},
        uses_corpus=True,
    ),
    "claim_support": ContractFixture(
        params=lambda env: {"threshold": 0.5},
        invalid_params={"threshold": 1.5},
        cases={Check.claim_support: CLAIM_CASES},
        uses_corpus=True,
    ),
    "coverage": ContractFixture(
        params=lambda env: {"min_okay_share": 0.0},
        invalid_params={"min_okay_share": 0.0, "max_window_sentences": 9},
        cases={Check.coverage: COVERAGE_CASES},
    ),
    "llm_judge": ContractFixture(
        params=lambda env: {
            "base_url": env.llm_base_url,
            "prompt": "prompt.md",
            "concurrency": 4,
            "timeout": 5.0,
            "max_attempts": 2,
            "max_connect_attempts": 1,
            "backoff_initial": 0.001,
            "backoff_max": 0.01,
            "max_retry_seconds": 5.0,
        },
        invalid_params={"base_url": "ftp://127.0.0.1/v1", "prompt": "prompt.md"},
        cases=_marker_cases(),
        files=(CONTRACT_DATA / "prompt.md",),
        uses_corpus=True,
        judge=JudgeSpec(model="fake-judge", provider="openai"),
    ),
    "command": ContractFixture(
        params=lambda env: {"argv": ["{python}", COMMAND_SCRIPT.name], "timeout": 20.0},
        invalid_params={"argv": ["{python}", COMMAND_SCRIPT.name], "timeout": 0},
        cases=_marker_cases(),
        files=(COMMAND_SCRIPT,),
        uses_corpus=True,
    ),
    # The rule grader decides everything here (no band), so the judge is never asked.
    "cascade": ContractFixture(
        params=lambda env: {"members": ["contract-claim-support@1", "contract-llm-judge@1"]},
        invalid_params={"members": ["contract-claim-support@1"]},
        cases={Check.claim_support: CLAIM_CASES},
        uses_corpus=True,
        member_kinds=("claim_support", "llm_judge"),
    ),
}


def toml_value(value: Any) -> str:
    """A TOML literal for the simple values fixtures use (strings, numbers, booleans, lists of those)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML literal for {value!r} in a contract fixture; use a simpler value")
