"""The ``cascade`` kind: the first decided verdict wins, later members see only what was left undecided, a
member's error is an error, and a calibration report shows each member's share and the calls saved."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict
from tests.support.fake_openai import FakeOpenAI
from tests.support.llm_project import write_judge, write_set

from graderctl.errors import InvalidInputError
from graderctl.models.calset import ClaimSupportInput, SampleInput
from graderctl.plugin import GraderKind, Verdict, kinds, register
from graderctl.services.calibrate import calibrate
from graderctl.store.project import find_grader, find_set


class FakeBandGrader(GraderKind):
    """Accepts a claim holding SURE_GOOD, rejects one holding SURE_BAD, errs on SURE_ERR, else undecided."""

    name = "fake_band"

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        out: list[Verdict] = []
        for inp in inputs:
            assert isinstance(inp, ClaimSupportInput)
            if "SURE_GOOD" in inp.claim:
                out.append(Verdict.accept("keyword says good", score=0.9, details={"rule": "good"}))
            elif "SURE_BAD" in inp.claim:
                out.append(Verdict.reject("keyword says bad", score=0.1))
            elif "SURE_ERR" in inp.claim:
                out.append(Verdict.failed("rule crashed on this one"))
            else:
                out.append(Verdict.undecided("no keyword", score=0.5))
        return out


@pytest.fixture(autouse=True)
def _registered() -> None:
    if "fake_band" not in kinds():
        register(FakeBandGrader, origin="tests/kinds/test_cascade.py")


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(mode="correct") as s:
        yield s


def write_grader(root: Path, name: str, kind: str, params: str = "") -> None:
    folder = root / "graders" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "v1.toml").write_text(
        f'schema_version = 1\nname = "{name}"\nversion = 1\nkind = "{kind}"\ncheck = "claim_support"\n'
        f'description = "test"\n\n[params]\n{params}',
        encoding="utf-8",
    )


def sample(i: int, label: str, words: str) -> dict[str, Any]:
    return {
        "id": f"{label}-{i:03d}",
        "label": label,
        "category": "c",
        "input": {"claim": f"Claim {i}: {words}", "evidence": [{"text": f"Passage {i}."}]},
    }


def project(root: Path, base_url: str, members: str = '["rule@1", "judge@1"]', mode: str = "") -> None:
    write_grader(root, "rule", "fake_band")
    write_judge(root, base_url, key_env=None)
    write_grader(root, "casc", "cascade", f"members = {members}\n{mode}")
    samples = (
        [sample(i, "good", "SURE_GOOD MARKER_GOOD") for i in range(5)]
        + [sample(i + 5, "good", "MARKER_GOOD") for i in range(3)]
        + [sample(i, "bad", "SURE_BAD MARKER_BAD") for i in range(4)]
        + [sample(i + 4, "bad", "MARKER_BAD") for i in range(2)]
    )
    write_set(project_root := root, "cs", samples, far=0.9, frr=0.9)
    assert project_root == root


def test_judge_is_called_only_on_what_the_rule_leaves_undecided(tmp_path: Path, server: FakeOpenAI) -> None:
    project(tmp_path, server.base_url)
    grader = find_grader("casc@1", tmp_path)
    report = calibrate(grader, find_set("cs", tmp_path), root=tmp_path, write=False)
    assert server.completions == 5  # 3 good + 2 bad had no keyword: only they reach the judge
    assert report.false_accept_rate.count == 0 and report.false_reject_rate.count == 0
    assert report.cascade is not None
    rule, judge = report.cascade.members
    assert (rule.ref, rule.graded, rule.decided, rule.undecided, rule.skipped) == ("rule@1", 14, 9, 5, 0)
    assert (judge.ref, judge.graded, judge.decided, judge.skipped) == ("judge@1", 5, 5, 9)
    assert judge.requests == 5 and judge.usd > 0
    assert report.cascade.calls_saved == 9
    assert rule.share_of_samples == pytest.approx(9 / 14)
    by_id = {s.id: s for s in report.samples}
    assert by_id["good-000"].reason.startswith("[rule@1] ")
    assert by_id["good-005"].reason.startswith("[judge@1] ")
    details = by_id["good-005"].model_dump()["details"]["cascade"]
    assert details["decided_by"] == "judge@1"
    assert [m["outcome"] for m in details["members"]] == ["undecided", "accept"]
    assert report.coverage is not None and report.coverage.value == 1.0


def test_member_error_is_an_error_not_the_next_members_verdict(tmp_path: Path, server: FakeOpenAI) -> None:
    project(tmp_path, server.base_url)
    grader = find_grader("casc@1", tmp_path)
    instance = grader.build()
    verdicts = instance.grade_batch(
        [ClaimSupportInput(claim="SURE_ERR MARKER_GOOD", evidence=[{"text": "x"}])]  # type: ignore[list-item]
    )
    assert verdicts[0].is_error and "rule@1" in (verdicts[0].error or "")
    assert server.completions == 0


def test_last_member_undecided_leaves_the_unit_undecided(tmp_path: Path, server: FakeOpenAI) -> None:
    project(tmp_path, server.base_url, members='["rule@1", "rule2@1"]')
    write_grader(tmp_path, "rule2", "fake_band")
    instance = find_grader("casc@1", tmp_path).build()
    [v] = instance.grade_batch(
        [ClaimSupportInput(claim="plain", evidence=[{"text": "x"}])]  # type: ignore[list-item]
    )
    assert v.is_undecided and not v.is_error
    assert v.details is not None and v.details["cascade"]["decided_by"] is None
    assert [m["member"] for m in v.details["cascade"]["members"]] == ["rule@1", "rule2@1"]
    assert "no member decided" in v.reason


def test_first_decided_member_wins_and_later_members_are_not_asked(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    project(tmp_path, server.base_url, members='["judge@1", "rule@1"]')
    instance = find_grader("casc@1", tmp_path).build()
    [v] = instance.grade_batch(
        [ClaimSupportInput(claim="SURE_GOOD plain", evidence=[{"text": "x"}])]  # type: ignore[list-item]
    )
    # the judge decides (reject: no MARKER_GOOD) first; the rule, which would accept, is never asked
    assert v.accepted is False and v.details is not None
    assert [m["member"] for m in v.details["cascade"]["members"]] == ["judge@1"]
    assert server.completions == 1


def test_agree_mode_marks_disagreement_contested(tmp_path: Path, server: FakeOpenAI) -> None:
    project(tmp_path, server.base_url, mode='mode = "agree"\n')
    instance = find_grader("casc@1", tmp_path).build()
    [agree, contested] = instance.grade_batch(
        [
            ClaimSupportInput(claim="SURE_GOOD MARKER_GOOD", evidence=[{"text": "x"}]),  # type: ignore[list-item]
            ClaimSupportInput(claim="SURE_GOOD MARKER_BAD", evidence=[{"text": "x"}]),  # type: ignore[list-item]
        ]
    )
    assert agree.accepted is True
    assert contested.is_undecided and contested.details is not None
    assert contested.details["cascade"]["contested"] is True
    assert "members disagree" in contested.reason


def test_fingerprint_covers_members_and_their_order(tmp_path: Path, server: FakeOpenAI) -> None:
    project(tmp_path, server.base_url)
    before = find_grader("casc@1", tmp_path).fingerprint
    rule = tmp_path / "graders" / "rule" / "v1.toml"
    rule.write_text(rule.read_text() + "\n", encoding="utf-8")  # formatting only: same definition
    assert find_grader("casc@1", tmp_path).fingerprint == before
    rule.write_text(rule.read_text().replace('description = "test"', 'description = "edited"'))
    edited = find_grader("casc@1", tmp_path).fingerprint
    assert edited != before
    write_grader(tmp_path, "casc", "cascade", 'members = ["judge@1", "rule@1"]\n')
    assert find_grader("casc@1", tmp_path).fingerprint not in (before, edited)


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ('["rule@1"]', "at least 2"),
        ('["rule", "judge@1"]', "pinned reference"),
        ('["rule@1", "rule@1"]', "named twice"),
        ('["rule@1", "nope@1"]', "member 'nope@1' cannot be loaded"),
        ('["rule@1", "casc@1"]', "the grader itself"),
    ],
)
def test_bad_members_are_input_errors(tmp_path: Path, server: FakeOpenAI, members: str, message: str) -> None:
    project(tmp_path, server.base_url, members=members)
    with pytest.raises(InvalidInputError) as exc:
        find_grader("casc@1", tmp_path)
    text = str(exc.value) + json.dumps([f"{p.message} {p.expected} {p.got}" for p in exc.value.problems])
    assert message in text, text


def test_member_of_another_check_is_refused(tmp_path: Path, server: FakeOpenAI) -> None:
    project(tmp_path, server.base_url)
    folder = tmp_path / "graders" / "cov"
    folder.mkdir()
    (folder / "v1.toml").write_text(
        'schema_version = 1\nname = "cov"\nversion = 1\nkind = "coverage"\ncheck = "coverage"\n',
        encoding="utf-8",
    )
    write_grader(tmp_path, "casc", "cascade", 'members = ["rule@1", "cov@1"]\n')
    with pytest.raises(InvalidInputError) as exc:
        find_grader("casc@1", tmp_path)
    assert any("grades another check" in p.message for p in exc.value.problems)


def test_reports_render_the_members(tmp_path: Path, server: FakeOpenAI) -> None:
    from graderctl.render.markdown import render_markdown
    from graderctl.render.text import render_text

    project(tmp_path, server.base_url)
    report = calibrate(find_grader("casc@1", tmp_path), find_set("cs", tmp_path), root=tmp_path, write=False)
    md, text = render_markdown(report), render_text(report)
    assert "## Cascade members" in md and "| judge@1 | 5 | 5 |" in md
    assert "rule@1 decided 9 (64.29%)" in text and "9 call(s) of later members saved" in text


def test_shipped_example_cascade_loads_once_copied_into_a_project(tmp_path: Path) -> None:
    import shutil

    repo = Path(__file__).resolve().parents[2]
    shutil.copytree(repo / "graders" / "claim-support", tmp_path / "graders" / "claim-support")
    for name in ("claim-support-llm", "claim-support-cascade"):
        shutil.copytree(repo / "examples" / "llm-judge" / "graders" / name, tmp_path / "graders" / name)
    cascade = find_grader("claim-support-cascade@1", tmp_path)
    assert [m.ref for m in cascade.members] == ["claim-support@2", "claim-support-llm@1"]
    assert cascade.members[0].params.model_dump().get("accept_at_or_above") is not None  # the rule abstains
    assert [j.model for j in cascade.judges] == ["gpt-4o-mini"]
