"""The text summary ``graderctl score`` prints on stdout, from its summary document (``--format json``)."""

from __future__ import annotations

from graderctl.models.results import ScoreSummary


def render_score_summary(doc: ScoreSummary) -> str:
    """What was scored, with which graders, how many succeeded, and what to do next."""
    graders_text = ", ".join(
        f"{g.grader} ({g.check}{'' if g.trusted else ', UNTRUSTED'})" for g in doc.graders
    )
    out = [f"Scored {doc.trials} trial(s) into {doc.output} with {graders_text}"]
    if doc.resumed:
        out.append(f"  {doc.resumed} trial(s) kept from the interrupted run, {doc.graded_now} graded now")
    required = doc.rule.require if doc.rule is not None else []
    out.append(
        f"  {doc.successes} succeeded, {doc.failures} failed, {doc.null} could not be graded "
        f"(success null; see each line's `reason`); rule: every one of {', '.join(required)}"
    )
    if doc.trials_without_generator and doc.judges:
        out.append(
            f"  {doc.trials_without_generator} trial(s) do not name their generator: the self-grading "
            f"guard could not check them against {', '.join(doc.judges)} "
            "(--require-generator refuses such trials)"
        )
    if doc.failures_by_check:
        out.append(
            "  failures by check: " + ", ".join(f"{c} {n}" for c, n in sorted(doc.failures_by_check.items()))
        )
    if doc.no_citations:
        out.append(
            "  no citations found (the check fails; a check that grades nothing never passes): "
            + ", ".join(f"{c} {n} trial(s)" for c, n in sorted(doc.no_citations.items()))
        )
    if doc.citations_not_required:
        out.append(
            f"  {doc.citations_not_required} trial(s) cite nothing but their task does not require "
            "citations (task.requires_citations = false): their citation checks passed with 0 units"
        )
    cited, uncited = doc.cited_claims, doc.uncited_claims
    if cited or uncited:
        parser = doc.parser
        out.append(
            f"  citation coverage: {cited}/{cited + uncited} claims cite a source ({uncited} uncited)"
            + (f"; report parser {parser.name}@{parser.version}" if parser else "")
        )
    if doc.errors_by_check:
        out.append(
            "  grader errors by check (units): "
            + ", ".join(f"{c} {n}" for c, n in sorted(doc.errors_by_check.items()))
        )
    review = doc.review
    if review:
        why = ", ".join(f"{n} {status}" for status, n in sorted(review.by_status.items()))
        out.append(
            f"  {review.items} unit(s) need review ({why}): {review.path}; label them (label = good or "
            "bad), then `graderctl sets add SET --from " + review.path + "`"
        )
    out.append(f"Next: graderctl metrics {doc.output}")
    return "\n".join(out) + "\n"
