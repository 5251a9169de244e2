"""Text summaries of the commands that write sets and trials (``sets import``, ``sets add``,
``trials import``), from their summary documents (``--format json``). Notes go to stderr: not here."""

from __future__ import annotations

from graderctl.models.imports import ImportSummary
from graderctl.models.results import TrialsImportSummary
from graderctl.models.review import SetsAddSummary


def render_set_import(summary: ImportSummary) -> str:
    out = [
        f"wrote {summary.path}: {summary.check.value} set {summary.name!r}, {summary.samples} samples "
        f"({summary.n_good} good, {summary.n_bad} bad), {summary.documents} corpus documents, "
        f"{summary.groups} groups"
    ]
    out += [f"  {cat}: {n}" for cat, n in summary.by_category.items()]
    return "\n".join(out) + "\n"


def render_set_add(summary: SetsAddSummary, *, dry_run: bool) -> str:
    labels = ", ".join(f"{n} {label}" for label, n in sorted(summary.by_label.items())) or "none"
    if not summary.added:
        return f"{summary.path}: nothing added\n"
    verb = "would add" if dry_run else "added"
    return (
        f"{verb} {summary.added} sample(s) ({labels}) and {summary.documents_added} corpus document(s) "
        f"to {summary.path}: version {summary.version_before} -> {summary.version_after}\n"
    )


def render_trials_import(summary: TrialsImportSummary) -> str:
    epochs = summary.epochs
    out = [
        f"wrote {summary.output}: {summary.trials} trial(s) of {summary.tasks} task(s)"
        + (f", epochs {epochs[0]}-{epochs[-1]}" if len(epochs) > 1 else "")
        + (f", generator {', '.join(summary.generators)}" if summary.generators else "")
    ]
    cost = summary.cost
    usd = "unknown" if cost.usd is None else f"${cost.usd:.4f}"
    out.append(f"  tokens: {cost.input_tokens} in, {cost.output_tokens} out; cost {usd}")
    if summary.corpus_output is not None:
        out.append(f"  wrote {summary.corpus_output}: {summary.documents} page(s) the agents read")
    results = summary.results
    if results is not None:
        out.append(
            f"  wrote {summary.results_output}: success from {results.scorer or 'the mapped field'}: "
            f"{results.successes} succeeded, {results.failures} failed, {results.null} not scored"
        )
    return "\n".join(out) + "\n"


def render_trials_next(summary: TrialsImportSummary) -> str:
    """The next steps after ``trials import`` (printed after its notes)."""
    next_steps = f"Next: graderctl score {summary.output} --output results.jsonl"
    if summary.corpus_output is not None:
        next_steps += f" --corpus {summary.corpus_output}"
    out = [next_steps]
    if summary.results is not None:
        out.append(f"      graderctl metrics {summary.results_output}   (the harness's own success)")
    return "\n".join(out) + "\n"
