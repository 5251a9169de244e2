"""The renderings of ``graderctl probe`` for people: one text line per probe and set, and the Markdown of a
probe report (``reports/probes/<set>/<name>@<version>-<probe>.md``, and ``probe --format md``)."""

from __future__ import annotations

from collections.abc import Sequence

from graderctl.models.probe import AnyProbeReport

#: How each probe outcome is shown ("ok" only when the evidence rules a bias out).
STATUS_SHOWN = {"biased": "BIAS", "no_bias": "ok", "not_applicable": "n/a", "inconclusive": "inconclusive"}


def render_probe_text(grader: str, results: Sequence[tuple[str, str, AnyProbeReport]]) -> str:
    """``results``: (set name, outcome, probe report) for each probe run."""
    lines = []
    for set_name, outcome, doc in results:
        status = STATUS_SHOWN.get(outcome, "inconclusive")
        lines.append(f"{status:12}  {doc.probe:6} {grader} on {set_name}: {doc.verdict}\n")
    return "".join(lines)


def render_markdown(report: AnyProbeReport) -> str:
    doc = report.model_dump()  # read as the JSON report (the same data the .json file holds)
    g, s = doc["grader"], doc["calibration_set"]
    status = {
        "biased": "BIAS FOUND",
        "no_bias": "no bias",
        "not_applicable": "not applicable",
    }.get(str(doc.get("outcome")), "inconclusive")
    lines = [
        f"# Probe `{doc['probe']}`: {g['name']}@{g['version']} on {s['name']}@{s['version']} — {status}",
        "",
        f"*{doc['question']}*",
        "",
        doc.get("verdict", ""),
        "",
        f"- grader: `{g['name']}@{g['version']}` ({g['kind']}), fingerprint `{g['fingerprint']}`",
        f"- set: `{s['name']}@{s['version']}`, fingerprint `{s['fingerprint']}`",
        f"- margin: {doc['margin']:g}; seed: {doc['seed']}; created {doc['created_at']}",
    ]
    if "n_transformed" in doc:
        lines.append(
            f"- samples transformed: {doc['n_transformed']} of {doc['n_targeted']} targeted "
            f"({doc['n_unchanged']} unchanged); pairs compared: {doc['n']}"
        )
    errors = doc.get("errors") or {}
    if errors.get("before") or errors.get("after"):
        lines.append(
            f"- grader errors (left out): {errors.get('before', 0)} before, {errors.get('after', 0)} after"
        )
    usage = doc.get("usage") or {}
    if usage.get("requests") or usage.get("cached"):
        lines.append(
            f"- usage: {usage['input_tokens']} input and {usage['output_tokens']} output tokens, "
            f"${usage['usd']:.4f}, {usage['requests']} request(s) ({usage.get('retries', 0)} of them "
            f"retries), {usage['cached']} cached verdict(s)"
        )
    if (
        "difference" in doc
        and "before" in doc
        and isinstance(doc["before"], dict)
        and "value" in doc["before"]
    ):
        d, b, a = doc["difference"], doc["before"], doc["after"]
        lines += [
            "",
            "| | before | after | change | McNemar p |",
            "|---|---|---|---|---|",
            f"| {doc['rate'].replace('_', ' ')} | {b['value']:.3f} ({b['count']}/{b['n']}) "
            f"| {a['value']:.3f} ({a['count']}/{a['n']}) "
            f"| {fmt_signed(d.get('diff'))} "
            f"[{fmt_signed(d.get('ci_low'))}, {fmt_signed(d.get('ci_high'))}] "
            f"| {fmt_p(doc.get('mcnemar_p'))} |",
        ]
    if "flips" in doc:
        f = doc["flips"]
        lines += [
            "",
            f"Flipped outcomes: {f['count']} of {f['n']} ({f['value']:.3f}); "
            f"{f['to_accept']} to accept, {f['to_reject']} to reject.",
        ]
    if "own_family" in doc:
        o, t = doc["own_family"], doc["other_families"]
        lines += [
            "",
            "| generator | false accepts | n | rate |",
            "|---|---|---|---|",
            f"| judge's own family | {o['count']} | {o['n']} | {_fmt(o['value'])} |",
            f"| other families | {t['count']} | {t['n']} | {_fmt(t['value'])} |",
        ]
    flipped = [r for r in doc.get("samples", []) if r.get("flipped")]
    if flipped:
        lines += [
            "",
            "## Flipped samples",
            "",
            "| id | category | before | after | transformation |",
            "|---|---|---|---|---|",
        ]
        for r in flipped[:50]:
            lines.append(
                f"| {r['id']} | {r['category']} | {_word(r['before'])} | {_word(r['after'])} "
                f"| {r['transformation']} |"
            )
        if len(flipped) > 50:
            lines.append(f"| … | {len(flipped) - 50} more | | | |")
    return "\n".join(lines) + "\n"


def _word(accepted: bool | None) -> str:
    return "error" if accepted is None else ("accept" if accepted else "reject")


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def fmt_signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.2f}"


def fmt_p(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"
