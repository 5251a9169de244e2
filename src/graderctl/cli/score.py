"""``graderctl score TRIALS --output RESULTS [--grader REF]... [--check NAME]... [--corpus PATH]``

One rule for ``--grader REF``: it replaces the grader of REF's check only; every other check keeps its default
grader (the newest of the check in ``graders/``), or with ``--rescore`` its old results. ``--check NAME``
(repeatable) scores only the checks named.

Exit codes: 0 scored; 2 bad usage; 3 invalid trials, corpus or grader; 4 a grader could not run (or erred
on every unit); 5 refused by trust policy (a grader not trusted for its check, or a judge grading its own
family's trials); 130 interrupted (``RESULTS.partial`` is kept: run the same command with ``--resume``).

Re-scoring with a new grader version (issue 5)::

    graderctl score --rescore OLD_RESULTS --grader claim-support@2 --output NEW_RESULTS

finds the trials through the results' recorded ``trials_file`` (or ``--trials``), leaves the old file
untouched, and records the old grader and fingerprint in every re-graded check (``rescored_from``).
"""

from __future__ import annotations

import gc
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from graderctl.cli import _state
from graderctl.cli._options import Corpus, Format, Jobs, NoCache, Quiet, check_timeout
from graderctl.errors import ExitCode, UsageError


class Resolve(StrEnum):
    corpus = "corpus"
    online = "online"


def score(
    trials: Annotated[
        Path | None,
        typer.Argument(help="Agent trials (JSON Lines; see README, 'Agent trials').", show_default=False),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Where to write the graded results (JSON Lines).")
    ] = None,
    graders: Annotated[
        list[str] | None,
        typer.Option(
            "--grader",
            help="Grader name@version for its check (repeatable, one per check); it replaces the grader of "
            "that check only: the other checks keep theirs (the newest grader of the check in graders/; "
            "with --rescore, their old results).",
        ),
    ] = None,
    only_checks: Annotated[
        list[str] | None,
        typer.Option(
            "--check",
            help="Score only this check (repeatable): source_existence, claim_support or coverage "
            "(default: every check with a grader in graders/ or named by --grader).",
        ),
    ] = None,
    corpus: Corpus = None,
    require: Annotated[
        str | None,
        typer.Option(
            "--require",
            help="Checks a trial must pass to succeed, comma-separated (default: every configured check).",
        ),
    ] = None,
    allow_untrusted: Annotated[
        bool,
        typer.Option(
            "--allow-untrusted",
            help="Score with graders not trusted for their check; every result they touch is marked.",
        ),
    ] = False,
    resolve: Annotated[
        Resolve | None,
        typer.Option(
            "--resolve",
            help="How source-existence graders resolve cited sources: corpus, or online (a URL or DOI the "
            "corpus lacks is fetched: 404/410 rejects, 5xx/timeouts are errors; cached on disk). Default: as "
            "the grader's definition says (resolve = ...).",
        ),
    ] = None,
    trust_sets: Annotated[
        list[str] | None,
        typer.Option(
            "--trust-set",
            help="Calibration set (name in the project, or folder path such as ./my-set) a grader must be "
            "trusted on, repeatable; a grader answers to the named sets of its check (default: every set of "
            "its check in calibration_sets/).",
        ),
    ] = None,
    allow_self_grading: Annotated[
        bool,
        typer.Option(
            "--allow-self-grading",
            help="Let a judge grade its own family's trials (needs --reason and calibration evidence).",
        ),
    ] = False,
    reason: Annotated[
        str | None, typer.Option("--reason", help="Why the self-grading override is acceptable (recorded).")
    ] = None,
    require_generator: Annotated[
        bool,
        typer.Option(
            "--require-generator",
            help="Refuse (exit 5) when a trial does not name its generator model (the self-grading guard "
            "cannot check it).",
        ),
    ] = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue an interrupted run without re-grading finished trials.")
    ] = False,
    rescore: Annotated[
        Path | None,
        typer.Option("--rescore", help="Re-grade the trials of these results with --grader NEW_REF."),
    ] = None,
    trials_opt: Annotated[
        Path | None,
        typer.Option("--trials", help="With --rescore: the trials file (default: the one the results name)."),
    ] = None,
    review: Annotated[
        Path | None,
        typer.Option(
            "--review",
            help="Where units a grader left undecided, a cascade contested or a grader erred on are written "
            "for people to label (JSON Lines; default: RESULTS with .review.jsonl; only when there are any). "
            "Label them, then `graderctl sets add SET --from REVIEW`.",
        ),
    ] = None,
    jobs: Jobs = 1,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Units per batch.")] = 64,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="Seconds allowed per unit (default: no limit).")
    ] = None,
    no_cache: NoCache = False,
    fmt: Annotated[Format, typer.Option("--format", help="Summary format on stdout.")] = Format.text,
    quiet: Quiet = False,
) -> None:
    """Grade agent trials with trusted graders: one result line per trial.

    Each check is graded by the newest grader of that check in graders/. --grader REF replaces the grader of
    REF's check only (the other checks keep theirs); --check NAME scores only some checks.

    A grader is trusted for its check when it meets the policy of every set of that check (or of every
    --trust-set). A set too small for its policy (see the sample-size advice of its report), or whose
    max_false_accept_rate or max_false_reject_rate is 0.5 or more, grants no trust (exit 5 says why)."""
    from graderctl.cli._progress import progress_bar, progress_enabled
    from graderctl.services.running import RunOptions
    from graderctl.services.score import ScoreOptions, partial_path, score_trials

    if output is None:
        raise UsageError("give --output RESULTS: where to write the graded results")
    _state.check_output(output)
    check_timeout(timeout)
    if trials is not None and trials_opt is not None:
        raise UsageError("give the trials once: as the argument or with --trials")
    known = {"source_existence", "claim_support", "coverage"}
    unknown = [c for c in only_checks or [] if c not in known]
    if unknown:
        raise UsageError(f"--check takes one of {', '.join(sorted(known))}; got {unknown[0]!r}")
    checks = None
    if require is not None:
        checks = [c.strip() for c in require.split(",") if c.strip()]
        bad = [c for c in checks if c not in known]
        if bad or not checks:
            raise UsageError(
                f"--require takes checks among {', '.join(sorted(known))}, comma-separated; got {require!r}"
            )
    if reason is not None and not allow_self_grading:
        raise UsageError("--reason goes with --allow-self-grading")
    options = ScoreOptions(
        output=output,
        trials=trials if trials is not None else trials_opt,
        graders=list(graders or []),
        checks=list(dict.fromkeys(only_checks)) if only_checks else None,
        corpus=corpus,
        require=checks,
        allow_untrusted=allow_untrusted,
        trust_sets=list(trust_sets or []),
        resolve=resolve.value if resolve is not None else None,
        allow_self_grading=allow_self_grading,
        reason=reason,
        require_generator=require_generator,
        resume=resume,
        rescore=rescore,
        review=review,
        run=RunOptions(jobs=jobs, timeout=timeout, batch_size=batch_size, use_cache=not no_cache),
    )
    root = _state.root()

    shown: set[str] = set()

    def show_notes(notes: list[str]) -> None:
        for note in notes:
            if not quiet and note not in shown:
                _state.err(f"note: {note}")
            shown.add(note)

    def planned(notes: list[str]) -> None:
        # The loaded trials, corpus and graders live for the whole run: keep the cyclic garbage collector
        # from re-scanning them again and again (as `calibrate` does).
        gc.freeze()
        show_notes(notes)

    enabled = progress_enabled(machine_output=fmt is Format.json, quiet=quiet)
    try:
        with progress_bar("scoring trials", enabled=enabled) as progress:
            outcome = score_trials(options, root=root, progress=progress, on_plan=planned)
    except OSError:  # disk full, file-size limit, ...: say what was kept, then the error (exit 3)
        partial = partial_path(output)
        if partial.is_file() and partial.stat().st_size:
            _state.err(
                f"note: the trials graded so far are kept in {partial}: fix the cause below, then run the "
                "same command with --resume to continue"
            )
        raise
    except KeyboardInterrupt:
        partial = partial_path(output)
        if partial.exists():
            done = sum(1 for line in partial.read_bytes().splitlines() if line.strip())
            _state.err(
                f"interrupted: {done} graded trial(s) are kept in {partial}; run the same command with "
                "--resume to continue"
            )
        else:
            _state.err("interrupted: nothing was written")
        _state.exit_with(ExitCode.INTERRUPTED)
        return
    finally:
        gc.unfreeze()  # matters only when the command runs inside a longer-lived process (tests, notebooks)
    if outcome.untrusted and not quiet:
        _state.err(
            "warning: scored with untrusted grader(s) "
            + ", ".join(outcome.untrusted)
            + " (--allow-untrusted); "
            "every result they touch is marked `untrusted`"
        )
    if outcome.self_grading is not None and not quiet:
        _state.err("warning: self-grading override recorded in every result line (`self_grading`)")
    if fmt is Format.json:
        _state.echo_json(outcome.model_dump(mode="json"))
        return
    show_notes(outcome.notes)
    from graderctl.render.score import render_score_summary

    typer.echo(render_score_summary(outcome), nl=False)
