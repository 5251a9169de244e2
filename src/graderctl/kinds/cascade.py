"""The ``cascade`` kind: an ordered list of graders for one check, the first decided verdict wins.

A cheap grader that may abstain (a rule grader with an abstention band) goes first; only what it leaves
undecided goes to the next member (typically a model judge), and so on. The last member's undecided verdict
leaves the unit undecided: calibration counts it apart (coverage) and ``score`` writes it to the review file.

``mode = "agree"`` runs every member on every unit instead and decides only when every member that decided
agrees; members that disagree make the unit *contested* (undecided, ``details.cascade.contested``), for people
to review.

A member's error ends the cascade for that unit with an error (a fault never becomes a verdict, not even the
next member's): it is counted apart like any grader error.

Members are named ``name@version`` (pinned: a cascade must not change under its users when a member gets a
new version); the services load them, check that they grade the cascade's check, build them into
``GradingContext.members`` and put their fingerprints, in order, into the cascade's fingerprint. Every
verdict's ``details.cascade`` records which member decided and each member's outcome, so a calibration
report can say how many units each member decided and how many calls of the later members were saved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graderctl.models.calset import SampleInput
from graderctl.plugin import GraderKind, GradingContext, Member, Usage, Verdict

#: ``name@version`` (pinned), or a definition file ``.../v<N>.toml`` relative to the cascade's own definition.
_PINNED_REF = r"^([a-z0-9][a-z0-9._-]*@[1-9][0-9]*|[^\0]*/v[1-9][0-9]*\.toml)$"


class CascadeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    members: list[str] = Field(
        min_length=2,
        description=(
            "Graders name@version (or definition files relative to this one), cheapest first; the first "
            "decided verdict wins."
        ),
    )
    mode: Literal["first_decided", "agree"] = Field(
        default="first_decided",
        description=(
            "first_decided: a member runs only on what the members before it left undecided; "
            "agree: every member runs and the unit is decided only when the deciding members agree."
        ),
    )

    @field_validator("members")
    @classmethod
    def _pinned_and_distinct(cls, members: list[str]) -> list[str]:
        for ref in members:
            if not re.match(_PINNED_REF, ref):
                raise ValueError(
                    f"member {ref!r} must be a pinned reference name@version (e.g. coverage@2) or a "
                    "definition file relative to this one (e.g. ../claim-support-llm/v1.toml)"
                )
        twice = sorted({ref for ref in members if members.count(ref) > 1})
        if twice:
            raise ValueError(f"member {twice[0]!r} is named twice")
        return members


def _outcome(v: Verdict) -> str:
    if v.is_error:
        return "error"
    if v.is_undecided:
        return "undecided"
    return "accept" if v.accepted else "reject"


def _step(member: Member, v: Verdict) -> dict[str, Any]:
    step: dict[str, Any] = {"member": member.ref, "outcome": _outcome(v)}
    if v.score is not None:
        step["score"] = v.score
    step["reason"] = v.error if v.is_error else v.reason
    if v.usage is not None:
        step["requests"] = v.usage.requests
        step["usd"] = v.usage.usd
    return step


def _add(total: Usage | None, u: Usage | None) -> Usage | None:
    if u is None:
        return total
    if total is None:
        return u
    return Usage(
        input_tokens=total.input_tokens + u.input_tokens,
        output_tokens=total.output_tokens + u.output_tokens,
        usd=total.usd + u.usd,
        requests=total.requests + u.requests,
        cached=total.cached and u.cached,
    )


class CascadeGrader(GraderKind):
    """Ordered member graders of one check; see the module docstring."""

    name = "cascade"

    class Params(CascadeParams):
        pass

    def __init__(self, params: BaseModel, context: GradingContext | None = None) -> None:
        super().__init__(params, context)
        assert isinstance(params, CascadeParams)
        self.mode = params.mode
        self.members: list[Member] = list(self.context.members)
        if len(self.members) != len(params.members):
            raise ValueError(
                "the cascade was built without its members (load it with graderctl's store, which builds "
                f"{', '.join(params.members)})"
            )
        # Members that wait on a model or a program run in threads; a cascade of rule graders in processes.
        waits = any(m.grader.model_based or m.grader.cacheable for m in self.members)
        self.parallelism = "threads" if waits else "processes"

    @classmethod
    def member_refs(cls, params: BaseModel) -> list[str]:
        assert isinstance(params, CascadeParams)
        return list(params.members)

    def _run(self, member: Member, inputs: Sequence[SampleInput]) -> list[Verdict]:
        try:
            verdicts = member.grader.grade_batch(inputs)
            if len(verdicts) != len(inputs):
                raise RuntimeError(f"returned {len(verdicts)} verdicts for {len(inputs)} inputs")
        except Exception as exc:  # the member's fault: an error on each of its units, never a verdict
            return [Verdict.failed(f"{type(exc).__name__}: {exc}") for _ in inputs]
        return verdicts

    def grade_batch(self, inputs: Sequence[SampleInput]) -> list[Verdict]:
        n = len(inputs)
        trails: list[list[dict[str, Any]]] = [[] for _ in range(n)]
        usage: list[Usage | None] = [None] * n
        final: list[Verdict | None] = [None] * n
        decided: list[list[tuple[Member, Verdict]]] = [[] for _ in range(n)]
        pending = list(range(n))
        for member in self.members:
            if not pending:
                break
            verdicts = self._run(member, [inputs[i] for i in pending])
            still: list[int] = []
            for i, v in zip(pending, verdicts, strict=True):
                trails[i].append(_step(member, v))
                usage[i] = _add(usage[i], v.usage)
                if v.is_error:
                    final[i] = Verdict.failed(f"cascade member {member.ref}: {v.error}")
                elif v.is_undecided:
                    still.append(i)
                else:
                    decided[i].append((member, v))
                    if self.mode == "agree":
                        still.append(i)
            pending = still
        out: list[Verdict] = []
        for i in range(n):
            out.append(self._final(final[i], decided[i], trails[i], usage[i]))
        return out

    def _final(
        self,
        failed: Verdict | None,
        decided: list[tuple[Member, Verdict]],
        trail: list[dict[str, Any]],
        usage: Usage | None,
    ) -> Verdict:
        info: dict[str, Any] = {"decided_by": None, "members": trail}
        if failed is not None:
            return Verdict.failed(failed.error or "", usage=usage, details={"cascade": info})
        if not decided:
            why = "; ".join(f"{s['member']}: {s['reason']}" for s in trail)
            return Verdict.undecided(f"no member decided ({why})", usage=usage, details={"cascade": info})
        member, verdict = decided[0]
        if self.mode == "agree" and len({v.accepted for _, v in decided}) > 1:
            info["contested"] = True
            sides = "; ".join(f"{m.ref}: {_outcome(v)} ({v.reason})" for m, v in decided)
            return Verdict.undecided(f"members disagree ({sides})", usage=usage, details={"cascade": info})
        info["decided_by"] = member.ref
        details = dict(verdict.details or {})
        details["cascade"] = info
        return Verdict.by_band(
            verdict.accepted,
            f"[{member.ref}] {verdict.reason}",
            verdict.score,
            usage=usage,
            details=details,
        )

    def close(self) -> None:
        for m in self.members:
            m.grader.close()
