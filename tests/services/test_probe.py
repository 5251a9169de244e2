"""Bias probes: the transformations (graderctl.probes) and the probe service and command."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from tests.support.llm_project import judge_samples, write_set

from graderctl.cli import _state, app
from graderctl.errors import ExitCode
from graderctl.language.sentences import split_sentences
from graderctl.models.base import Check
from graderctl.models.calset import (
    ClaimSupportInput,
    CoverageInput,
    SampleInput,
    SourceExistenceInput,
)
from graderctl.normalize import normalize_doi, normalize_url
from graderctl.plugin import GraderKind, Verdict, register
from graderctl.probes import pad, reformat, reorder, typographic_quotes
from graderctl.store import schemas

CLAIM = ClaimSupportInput(
    claim='The index rose by 4.5% in 2023, the agency\'s "annual review" said.',
    evidence=[{"text": "Passage one."}, {"text": "Passage two."}, {"text": "Passage three."}],
)
COVERAGE = CoverageInput(
    question="Why did the index rise?",
    nuggets=[{"text": "Demand grew", "importance": "vital"}, {"text": "Costs fell", "importance": "okay"}],
    report='Demand grew strongly in 2023. Costs fell as well [1].\n\nAnalysts called it "robust".',
)
CITATION = SourceExistenceInput(
    citation={
        "url": "https://example.org/reports/2023",
        "doi": "10.1234/abc.5678",
        "title": 'The "Annual" Review',
        "quote": "the index rose by four and a half percent over the course of the year",
    }
)
INPUTS: list[SampleInput] = [CLAIM, COVERAGE, CITATION]
NEGATIONS = re.compile(r"\b(not|no|never|none|neither|nor|cannot|n't|without)\b", re.I)


def words(text: str) -> str:
    return " ".join(re.findall(r"[A-Za-z0-9%]+", text))


# --- transformations ----------------------------------------------------------------------------------


@pytest.mark.parametrize("inp", INPUTS, ids=["claim", "coverage", "citation"])
@pytest.mark.parametrize("fn", [pad, reorder, reformat], ids=["pad", "reorder", "reformat"])
def test_transformations_are_deterministic_and_valid(fn, inp: SampleInput) -> None:
    a, b = fn(inp, "1:x:s1"), fn(inp, "1:x:s1")
    assert a == b
    type(inp).model_validate(a.input.model_dump())  # still a valid input of its shape
    assert inp == type(inp).model_validate(inp.model_dump())  # the original is untouched


def test_pad_adds_only_uninformative_text() -> None:
    out = pad(CLAIM, "1:length:s1")
    assert out.changed and isinstance(out.input, ClaimSupportInput)
    claim = out.input.claim
    assert claim.startswith(CLAIM.claim)
    extra = claim[len(CLAIM.claim) :]
    assert len(extra) >= max(2 * len(CLAIM.claim), 800)
    # no new numbers and no negations beyond restating the claim's own
    assert set(re.findall(r"\d+(?:\.\d+)?", claim)) == set(re.findall(r"\d+(?:\.\d+)?", CLAIM.claim))
    assert not NEGATIONS.search(extra)
    assert pad(CLAIM, "2:length:s1").input != out.input  # the seed matters


def test_pad_coverage_and_citation() -> None:
    cov = pad(COVERAGE, "s")
    assert isinstance(cov.input, CoverageInput)
    assert cov.input.report.startswith(COVERAGE.report) and len(cov.input.report) > 3 * len(COVERAGE.report)
    assert cov.input.nuggets == COVERAGE.nuggets
    cit = pad(CITATION, "s")
    assert isinstance(cit.input, SourceExistenceInput)
    c = cit.input.citation
    assert c.url == CITATION.citation.url and c.doi == CITATION.citation.doi
    assert c.quote == CITATION.citation.quote
    assert c.title and c.title.startswith('The "Annual" Review: ') and len(c.title) > 800


def test_reorder_is_a_real_permutation() -> None:
    out = reorder(CLAIM, "s")
    assert isinstance(out.input, ClaimSupportInput) and out.changed
    assert out.input.evidence != CLAIM.evidence
    assert sorted(e.text or "" for e in out.input.evidence) == sorted(e.text or "" for e in CLAIM.evidence)
    cov = reorder(COVERAGE, "s")
    assert isinstance(cov.input, CoverageInput)
    assert [n.text for n in cov.input.nuggets] == ["Costs fell", "Demand grew"]
    assert not reorder(CITATION, "s").changed
    single = ClaimSupportInput(claim="x", evidence=[{"text": "only"}])
    assert not reorder(single, "s").changed


def test_reformat_keeps_the_words_and_identifiers() -> None:
    claim = reformat(CLAIM, "s")
    assert isinstance(claim.input, ClaimSupportInput) and claim.changed
    assert "“annual review”" in claim.input.claim and "agency’s" in claim.input.claim
    assert words(claim.input.claim) == words(CLAIM.claim)
    cov = reformat(COVERAGE, "s")
    assert isinstance(cov.input, CoverageInput)
    assert words(cov.input.report).replace("Findings ", "") == words(COVERAGE.report)
    assert "[^1]" in cov.input.report and "“robust”" in cov.input.report
    cit = reformat(CITATION, "s")
    assert isinstance(cit.input, SourceExistenceInput)
    new, old = cit.input.citation, CITATION.citation
    assert new.url == "<https://example.org/reports/2023>" and new.doi == "https://doi.org/10.1234/abc.5678"
    assert normalize_url(new.url) == normalize_url(old.url or "")
    assert normalize_doi(new.doi) == normalize_doi(old.doi or "")
    assert new.title == "The “Annual” Review"
    assert new.quote and "\n" in new.quote and " ".join(new.quote.split()) == old.quote


def test_typographic_quotes_and_sentences() -> None:
    assert typographic_quotes("it's \"fine\" and 'ok'") == "it’s “fine” and ‘ok’"
    assert split_sentences("Dr. Smith left at 5 p.m. Then U.S. policy changed. It rose.", cautious=True) == [
        "Dr. Smith left at 5 p.m. Then U.S. policy changed.",
        "It rose.",
    ]


# --- the service and the command ----------------------------------------------------------------------


def _claim(inp: SampleInput) -> str:
    assert isinstance(inp, ClaimSupportInput)
    return inp.claim


class _Base(GraderKind):
    checks = frozenset({Check.claim_support})

    def decide(self, inp: SampleInput) -> bool:
        return "MARKER_GOOD" in _claim(inp)

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return [Verdict.accept("yes") if self.decide(i) else Verdict.reject("no") for i in inputs]


class Fair(_Base):
    name = "test_probe_fair"


class LovesLength(_Base):
    name = "test_probe_loves_length"

    def decide(self, inp: SampleInput) -> bool:
        return super().decide(inp) or len(_claim(inp)) > 300


class FirstPassage(_Base):
    """Reads only the first evidence passage: order-sensitive."""

    name = "test_probe_first_passage"

    def decide(self, inp: SampleInput) -> bool:
        assert isinstance(inp, ClaimSupportInput)
        return super().decide(inp) and "a:" in (inp.evidence[0].text or "")


class HatesMarkdown(_Base):
    name = "test_probe_hates_markdown"

    def decide(self, inp: SampleInput) -> bool:
        return super().decide(inp) and not any(c in _claim(inp) for c in "*“\n")


class Broken(_Base):
    name = "test_probe_broken"

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return [Verdict.failed("cannot grade") for _ in inputs]


class FailsOnLong(_Base):
    name = "test_probe_fails_on_long"

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        return [Verdict.failed("too long") if len(_claim(i)) > 300 else Verdict.accept("ok") for i in inputs]


class OwnFamily(_Base):
    """A model judge that lets bad answers of its own family through (they carry MARKER_OWN)."""

    name = "test_probe_own_family"
    model_based = True

    def decide(self, inp: SampleInput) -> bool:
        return super().decide(inp) or "MARKER_OWN" in _claim(inp)


KINDS = [Fair, LovesLength, FirstPassage, HatesMarkdown, Broken, FailsOnLong, OwnFamily]


@pytest.fixture(autouse=True)
def _kinds() -> None:
    for k in KINDS:
        register(k)


def project(tmp_path: Path, *, own_marker: bool = False, n: int = 12) -> Path:
    for k in KINDS:
        folder = tmp_path / "graders" / k.name.replace("_", "-")
        folder.mkdir(parents=True)
        judge = '\n[judge]\nmodel = "gpt-4o-mini"\nprovider = "openai"\n' if k.model_based else ""
        (folder / "v1.toml").write_text(
            f'schema_version = 1\nname = "{folder.name}"\nversion = 1\nkind = "{k.name}"\n'
            f'check = "claim_support"\n{judge}'
        )
    samples = judge_samples(n, n, generators=True)
    if own_marker:
        for s in samples:
            if s["label"] == "bad" and s["generator"]["provider"] == "openai":
                s["input"]["claim"] += " MARKER_OWN"
    write_set(tmp_path, "cs", samples)
    return tmp_path


def cli(root: Path, *args: str) -> int:
    return _state.run(app, ["--root", str(root), *args])


def test_fair_grader_passes_every_probe_and_writes_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 60 + 60 samples: enough for the 90% intervals to rule out a rise above the 0.05 margin
    root = project(tmp_path, n=60)
    code = cli(root, "probe", "test-probe-fair@1", "--set", "cs")
    out = capsys.readouterr()
    assert code == ExitCode.OK, out
    assert len(out.out.strip().splitlines()) == 3 and all(
        line.startswith("ok ") for line in out.out.strip().splitlines()
    ), out.out
    for probe in ("length", "order", "format"):
        doc = json.loads((root / f"reports/probes/cs/test-probe-fair@1-{probe}.json").read_text())
        assert doc["schema_version"] == 1 and doc["type"] == "probe" and doc["probe"] == probe
        assert doc["biased"] is False and doc["applicable"] is True and doc["outcome"] == "no_bias"
        assert doc["verdict"].startswith("no bias: ")
        assert doc["calibration_set"]["path"] == "calibration_sets/cs"
        assert (root / f"reports/probes/cs/test-probe-fair@1-{probe}.md").is_file()
    length = json.loads((root / "reports/probes/cs/test-probe-fair@1-length.json").read_text())
    assert length["n"] == 60 and length["rate"] == "false_accept_rate"
    assert length["before"] == length["after"] == {"count": 0, "n": 60, "value": 0.0}
    assert length["difference"]["ci_high"] <= 0.05
    assert length["mcnemar_p"] == 1.0


def test_fair_grader_on_a_small_set_is_inconclusive_not_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 11 item 18: 12 pairs cannot support "no bias" within 0.05 (the interval is wider than the margin)
    root = project(tmp_path, n=12)
    code = cli(root, "probe", "test-probe-fair@1", "--set", "cs")
    out = capsys.readouterr()
    assert code == ExitCode.OK, out  # no bias was found, but none is claimed absent either
    lines = out.out.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("inconclusive ") for line in lines), out.out
    assert not any(line.startswith("ok") for line in lines)
    for probe in ("length", "order", "format"):
        doc = json.loads((root / f"reports/probes/cs/test-probe-fair@1-{probe}.json").read_text())
        assert doc["outcome"] == "inconclusive" and doc["biased"] is False
        assert doc["verdict"].startswith("inconclusive: ") and "cannot be ruled out" in doc["verdict"]
        md = (root / f"reports/probes/cs/test-probe-fair@1-{probe}.md").read_text()
        assert "— inconclusive" in md.splitlines()[0] and "passed" not in md


def test_one_usable_sample_is_inconclusive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, n=1)
    code = cli(root, "probe", "test-probe-fair@1", "--set", "cs", "--probe", "length", "--format", "json")
    doc = json.loads(capsys.readouterr().out)
    assert code == ExitCode.OK
    assert doc["n"] == 1 and doc["outcome"] == "inconclusive" and doc["verdict"].startswith("inconclusive")


def test_length_bias_is_found_with_its_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    code = cli(
        root, "probe", "test-probe-loves-length@1", "--set", "cs", "--probe", "length", "--format", "json"
    )
    out = capsys.readouterr()
    assert code == ExitCode.NEGATIVE_VERDICT, out.err
    doc = json.loads(out.out)
    assert doc["biased"] is True
    assert doc["before"]["value"] == 0.0 and doc["after"]["value"] == 1.0
    assert doc["difference"]["diff"] == 1.0 and doc["difference"]["c"] == 12 and doc["difference"]["b"] == 0
    assert doc["difference"]["ci_low"] > 0.5
    assert doc["mcnemar_p"] == pytest.approx(2 / 2**12)
    assert "false accept rate 0.00 → 1.00 (+1.00" in doc["verdict"] and "McNemar p=" in doc["verdict"]
    md = (root / "reports/probes/cs/test-probe-loves-length@1-length.md").read_text()
    assert "BIAS FOUND" in md and "## Flipped samples" in md


def test_order_sensitivity_is_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    code = cli(
        root, "probe", "test-probe-first-passage@1", "--set", "cs", "--probe", "order", "--format", "json"
    )
    doc = json.loads(capsys.readouterr().out)
    assert code == ExitCode.NEGATIVE_VERDICT
    assert doc["flips"]["count"] == 12 and doc["flips"]["to_reject"] == 12 and doc["flips"]["n"] == 24
    assert doc["flips"]["value"] == 0.5 and doc["biased"] is True


def test_format_fragility_is_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    code = cli(
        root, "probe", "test-probe-hates-markdown@1", "--set", "cs", "--probe", "format", "--format", "json"
    )
    doc = json.loads(capsys.readouterr().out)
    assert code == ExitCode.NEGATIVE_VERDICT
    assert doc["rate"] == "false_reject_rate" and doc["after"]["value"] == 1.0 and doc["biased"] is True


def test_self_preference_is_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, own_marker=True)
    code = cli(root, "probe", "test-probe-own-family@1", "--set", "cs", "--probe", "self", "--format", "json")
    doc = json.loads(capsys.readouterr().out)
    assert code == ExitCode.NEGATIVE_VERDICT
    assert doc["own_family"] == {"count": 6, "n": 6, "value": 1.0}
    assert doc["other_families"] == {"count": 0, "n": 6, "value": 0.0}
    assert doc["biased"] is True and doc["judge"]["family"] == "gpt-4o"
    assert not list(schemas.validator("probe-report").iter_errors(doc))  # the self probe's report


def test_self_preference_on_few_samples_is_inconclusive_by_the_override_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from graderctl.stats import self_preference

    root = project(tmp_path)  # 6 own-family and 6 other-family bad samples, none accepted
    code = cli(root, "probe", "test-probe-own-family@1", "--set", "cs", "--probe", "self", "--format", "json")
    doc = json.loads(capsys.readouterr().out)
    assert code == ExitCode.OK
    assert doc["outcome"] == "inconclusive" and doc["biased"] is False
    assert doc["self_preference"]["outcome"] == "insufficient"
    assert doc["verdict"].startswith("inconclusive: too few known-bad samples")
    # one rule: the probe's decision is score's --allow-self-grading decision for the same counts
    same = self_preference(0, 6, 0, 6, margin=0.05, confidence=0.9)
    assert doc["self_preference"] == same.to_dict()
    assert not same.no_bias


def test_self_preference_not_applicable_to_rule_graders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    code = cli(root, "probe", "test-probe-fair@1", "--set", "cs", "--probe", "self", "--format", "json")
    doc = json.loads(capsys.readouterr().out)
    assert code == ExitCode.OK and doc["applicable"] is False and "not model-based" in doc["verdict"]


def test_several_probes_print_one_json_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    code = cli(root, "probe", "test-probe-loves-length@1", "--format", "json", "--no-write")
    doc = json.loads(capsys.readouterr().out)
    assert code == ExitCode.NEGATIVE_VERDICT
    assert doc["type"] == "probes" and doc["biased"] is True
    assert [p["probe"] for p in doc["probes"]] == ["length", "order", "format"]
    assert [p["biased"] for p in doc["probes"]] == [True, False, False]
    assert not (root / "reports").exists()


def test_grader_that_cannot_run_exits_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    assert cli(root, "probe", "test-probe-broken@1", "--set", "cs") == ExitCode.GRADER_FAILED
    assert "cannot grade" in capsys.readouterr().err


def test_grader_that_cannot_grade_the_transformed_samples_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path)
    code = cli(root, "probe", "test-probe-fails-on-long@1", "--probe", "length")
    assert code == ExitCode.GRADER_FAILED
    assert "transformed by the length probe: too long" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args", [("--probe", "loudness"), ("--margin", "1.5")], ids=["unknown-probe", "bad-margin"]
)
def test_usage_errors(tmp_path: Path, args: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    assert cli(root, "probe", "test-probe-fair@1", "--set", "cs", *args) == ExitCode.USAGE_ERROR


def test_probe_with_the_llm_judge_uses_the_cache(tmp_path: Path, monkeypatch) -> None:
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.llm_project import write_llm_project

    monkeypatch.setenv("JUDGE_TEST_KEY", "sk-probe-test-key-0000")
    with FakeOpenAI(mode="accept_long") as srv:
        write_llm_project(tmp_path, srv.base_url, n_good=8, n_bad=8)
        assert (
            cli(tmp_path, "probe", "judge@1", "--set", "cs", "--probe", "length") == ExitCode.NEGATIVE_VERDICT
        )
        first = srv.requests
        assert first == 16 + 8
        assert (
            cli(tmp_path, "probe", "judge@1", "--set", "cs", "--probe", "length") == ExitCode.NEGATIVE_VERDICT
        )
        assert srv.requests == first
        assert cli(tmp_path, "probe", "judge@1", "--set", "cs", "--probe", "length", "--no-cache") == 1
        assert srv.requests == 2 * first


def _shipped() -> list[Path]:
    from tests.conftest import REPO

    return sorted((REPO / "graders").glob("*/v*.toml"))


@pytest.mark.slow
@pytest.mark.parametrize("definition", _shipped(), ids=lambda p: f"{p.parent.name}@{p.stem}")
def test_shipped_rule_graders_pass_every_probe_on_the_shipped_sets(definition: Path) -> None:
    from tests.conftest import REPO

    from graderctl.services.probe import run_probes
    from graderctl.services.trust import sets_of_check
    from graderctl.store.project import load_grader

    grader = load_grader(definition, root=REPO)
    if grader.kind.model_based:
        pytest.skip("a model judge needs a server")
    sets = sets_of_check(REPO, grader.spec.check)
    if not sets:
        pytest.skip(f"no shipped set for {grader.spec.check.value}")
    for cal_set in sets:
        results = run_probes(grader, cal_set, ("length", "order", "format"), root=REPO, write=False)
        verdicts = {r.probe: r.document.verdict for r in results}
        assert not any(r.biased for r in results), verdicts
