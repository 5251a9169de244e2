"""``graderctl trials import``: agent trials (CONTRACT.md §4) from what harnesses write.

**Inspect AI logs** (``.eval`` / ``.json``, read with ``inspect_ai.log``; optional extra
``graderctl[inspect]``). One trial per sample and epoch:

- ``task_id`` = the sample id (``<task>/<id>`` when the logs hold several tasks); ``trial_id`` =
  ``<task_id>-e<epoch>``;
- ``report.text`` = the final answer (``output.completion``; else the last assistant message);
- ``task.question`` = the sample's input (the user messages' text when it is a conversation);
  ``task.nuggets`` and ``category`` from the sample's metadata when it has them;
- ``generator`` = the eval's model (``provider/name``);
- ``cost`` = the sample's model usage (input and output tokens, over every model it called), tool calls,
  wall time (``total_time``), and ``usd`` from ``--price``/``--prices`` (USD per million input/output
  tokens) or, without a price, the cost Inspect recorded (``total_cost``); ``null`` when neither is known;
- ``stop_reason`` = ``error`` (the sample failed), ``<type>_limit`` (a limit ended it), else the output's stop
  reason (``stop`` is written ``completed``);
- ``trajectory`` = ``<log>#<sample id>/e<epoch>``.

The text of the pages the agent read through tools becomes a corpus file (``--corpus-output``): a tool call
with a URL argument (a fetch or browse tool) gives a document with that URL and the tool result's text (HTML
turned into text); the URL citations of a search result (``ContentText.citations``, as Inspect's
``web_search`` returns them) give one document each with the cited text; a plain-text search result is split
at the URLs it lists. Which tools count: ``--tool NAME`` (repeatable), else any tool called with a URL or
whose name says it fetches, browses or searches. A URL fetched several times is one document holding each
distinct text once. Source existence can then be checked against what the agents actually read.

Success for ``metrics``: the Inspect scores, with ``--results-output``: one result line per trial whose
``success`` is the score's value converted by Inspect's own ``value_to_float`` (``C`` = 1, ``I`` = 0, ...)
compared with ``--success-value`` (default 1.0, as Inspect's ``pass_at``/``pass_k`` reducers do); a sample
without a score (an error) is ``success: null``. ``graderctl metrics`` on that file therefore gives the
pass@k and pass^k that Inspect's epoch reducers give; ``graderctl score`` on the trials gives graderctl's own
verdicts instead.

**JSON Lines from any harness** (``trials import jsonl FILE --map target=path,...``): each target is a trial
field (``task_id``, ``trial_id``, ``report`` = ``report.text``, ``question`` = ``task.question``, ``model`` =
``generator.model``, ``provider``, ``category``, ``stop_reason``, ``input_tokens``, ``output_tokens``,
``usd``, ``tool_calls``, ``wall_seconds``, ``trajectory``, ``nuggets``, ``report.claims``,
``report.sources``, ``success`` for ``--results-output``) and each path a dotted path into the record
(``output.text``, ``messages.-1.content``: integers index lists, negative from the end).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graderctl.errors import InvalidInputError, Problem, UsageError
from graderctl.htmltext import html_to_text, looks_like_html
from graderctl.models.calset import CorpusDocument
from graderctl.models.results import (
    GradedResult,
    ImportedCost,
    ImportedResults,
    ImportedScore,
    TrialsImportSummary,
)
from graderctl.models.trials import Cost, Trial
from graderctl.normalize import find_doi, normalize_url
from graderctl.store.problems import ProblemSink
from graderctl.store.readers import decode_json_line, display_path, iter_json_lines, read_bytes

#: Tool names that read web pages (when ``--tool`` does not say which tools do).
_PAGE_TOOL = re.compile(r"fetch|brows|search|web|url|http|scrap|crawl|page|visit|download|read_link", re.I)
_URL = re.compile(r"https?://[^\s<>\"'\])}]+", re.I)
_URL_ARGS = ("url", "uri", "link", "href", "address", "page")
PER_MILLION = 1_000_000


# --- prices ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Price:
    """USD per million input tokens and per million output tokens."""

    input: float
    output: float


def parse_price(text: str) -> tuple[str, Price]:
    """``MODEL=IN/OUT`` (USD per million input / output tokens), e.g. ``openai/gpt-4o=2.5/10``."""
    model, sep, rest = text.rpartition("=")
    parts = rest.split("/")
    try:
        if not sep or not model.strip() or len(parts) != 2:
            raise ValueError
        price = Price(float(parts[0]), float(parts[1]))
        if not all(math.isfinite(v) and v >= 0 for v in (price.input, price.output)):
            raise ValueError
    except ValueError:
        raise UsageError(
            f"--price takes MODEL=IN/OUT, USD per million input and output tokens (e.g. "
            f"openai/gpt-4o=2.5/10); got {text!r}"
        ) from None
    return model.strip(), price


def read_prices(path: Path, root: Path) -> dict[str, Price]:
    """A prices file: TOML or JSON, ``{"<model>": {"input": USD per 1M, "output": USD per 1M}}`` (TOML:
    ``["openai/gpt-4o"]`` tables)."""
    shown = display_path(path, root)
    data = read_bytes(path, shown)
    try:
        raw: Any = (
            json.loads(data) if path.suffix == ".json" else tomllib.loads(data.decode("utf-8", "replace"))
        )
    except (json.JSONDecodeError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInputError(
            f"{shown}: unreadable prices file",
            [Problem(file=shown, message=f"cannot parse it: {exc}", expected="TOML, or JSON for *.json")],
        ) from None
    problems: list[Problem] = []
    out: dict[str, Price] = {}
    if not isinstance(raw, dict):
        raw = {}
        problems.append(Problem(file=shown, message="expected a table of models", got="something else"))
    for model, value in raw.items():
        ok = (
            isinstance(value, dict)
            and set(value) == {"input", "output"}
            and all(
                isinstance(value[k], int | float) and not isinstance(value[k], bool) and value[k] >= 0
                for k in ("input", "output")
            )
        )
        if not ok:
            problems.append(
                Problem(
                    file=shown,
                    pointer=f"/{model}",
                    message="not a price",
                    expected="{input = USD per million input tokens, output = USD per million output tokens}",
                    got=json.dumps(value)[:80],
                )
            )
            continue
        out[str(model)] = Price(float(value["input"]), float(value["output"]))
    if problems:
        raise InvalidInputError(f"{shown}: invalid prices file", problems)
    return out


def _price_for(model: str, prices: dict[str, Price]) -> Price | None:
    if model in prices:
        return prices[model]
    bare = model.split("/", 1)[-1]
    return prices.get(bare)


# --- options and outcome --------------------------------------------------------------------------


@dataclass
class ImportOptions:
    output: Path
    corpus_output: Path | None = None
    results_output: Path | None = None
    prices: dict[str, Price] = field(default_factory=dict)
    #: Inspect: the scorer whose scores give ``success`` (default: the only one).
    scorer: str | None = None
    #: A score value at least this (after ``value_to_float``) is a success.
    success_value: float = 1.0
    #: Inspect: the tools whose results are pages the agent read (default: detected).
    tools: list[str] | None = None
    #: JSON Lines: target field -> dotted path in the record.
    mapping: dict[str, str] = field(default_factory=dict)


#: What an import returns and ``trials import --format json`` prints
#: (:class:`graderctl.models.results.TrialsImportSummary`).
ImportOutcome = TrialsImportSummary


# --- the corpus of pages read ---------------------------------------------------------------------


@dataclass
class _Page:
    url: str
    title: str | None = None
    texts: list[str] = field(default_factory=list)


class PageCollector:
    """Pages the agents read, one per normalised URL; each distinct text kept once."""

    def __init__(self) -> None:
        self.pages: dict[str, _Page] = {}

    def add(self, url: str, text: str, title: str | None = None) -> None:
        url = url.strip().rstrip(".,;:")
        if not _URL.match(url):
            return
        if looks_like_html(text):
            html_title, text = html_to_text(text)
            title = title or html_title
        text = text.strip()
        key = normalize_url(url)
        page = self.pages.get(key)
        if page is None:
            page = self.pages[key] = _Page(url)
        if title and not page.title:
            page.title = " ".join(title.split())
        if text and text not in page.texts:
            page.texts.append(text)

    def documents(self) -> list[CorpusDocument]:
        out = []
        for key, page in self.pages.items():
            digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
            out.append(
                CorpusDocument(
                    id=f"page-{digest}",
                    url=page.url,
                    doi=find_doi(page.url),
                    title=page.title,
                    text="\n\n".join(page.texts),
                )
            )
        return out


def _content_parts(content: Any) -> Iterable[tuple[str, list[Any]]]:
    """``(text, citations)`` of a message's content (a string or a list of Inspect content items)."""
    if isinstance(content, str):
        yield content, []
        return
    for item in content or []:
        if getattr(item, "type", None) == "text":
            yield str(getattr(item, "text", "") or ""), list(getattr(item, "citations", None) or [])


def _url_argument(arguments: Any) -> str | None:
    if not isinstance(arguments, dict):
        return None
    for name in _URL_ARGS:
        value = arguments.get(name)
        if isinstance(value, str) and _URL.match(value.strip()):
            return value.strip()
    for value in arguments.values():
        if isinstance(value, str) and _URL.fullmatch(value.strip()):
            return value.strip()
    return None


def _split_at_urls(text: str) -> list[tuple[str, str]]:
    """A plain-text search result listing several pages: ``(url, the text after it up to the next URL)``."""
    found = list(_URL.finditer(text))
    out = []
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        out.append((m.group().rstrip(".,;:"), text[m.end() : end]))
    return out


def collect_pages(messages: Sequence[Any], pages: PageCollector, tools: list[str] | None) -> int:
    """Add the pages read through tools in one sample's messages; returns the number of tool calls."""
    calls: dict[str, tuple[str, Any]] = {}
    n_calls = 0
    for message in messages:
        role = getattr(message, "role", None)
        if role == "assistant":
            for call in getattr(message, "tool_calls", None) or []:
                n_calls += 1
                calls[str(call.id)] = (str(call.function), call.arguments)
            continue
        if role != "tool" or getattr(message, "error", None) is not None:
            continue
        function, arguments = calls.get(str(message.tool_call_id), (str(message.function or ""), {}))
        url = _url_argument(arguments)
        if tools is not None:
            if function not in tools:
                continue
        elif url is None and not _PAGE_TOOL.search(function):
            continue
        parts = list(_content_parts(message.content))
        cited = False
        for _, citations in parts:
            for citation in citations:
                c_url = getattr(citation, "url", None)
                c_text = getattr(citation, "cited_text", None)
                if isinstance(c_url, str):
                    cited = True
                    pages.add(
                        c_url, c_text if isinstance(c_text, str) else "", getattr(citation, "title", None)
                    )
        text = "\n".join(t for t, _ in parts if t)
        if url is not None:
            pages.add(url, text)
        elif not cited:
            for page_url, page_text in _split_at_urls(text):
                pages.add(page_url, page_text)
    return n_calls


# --- Inspect logs ---------------------------------------------------------------------------------


def _question(sample_input: Any) -> str:
    if isinstance(sample_input, str):
        return sample_input
    texts = [
        str(getattr(m, "text", "") or "")
        for m in sample_input or []
        if getattr(m, "role", None) in ("user", None)
    ]
    return "\n\n".join(t for t in texts if t)


def _final_answer(sample: Any) -> str:
    output = getattr(sample, "output", None)
    text = str(getattr(output, "completion", "") or "") if output is not None else ""
    if text.strip():
        return text
    for message in reversed(getattr(sample, "messages", None) or []):
        if getattr(message, "role", None) == "assistant":
            return str(getattr(message, "text", "") or "")
    return ""


def _stop_reason(sample: Any) -> str | None:
    if getattr(sample, "error", None) is not None:
        return "error"
    limit = getattr(sample, "limit", None)
    if limit is not None:
        return f"{getattr(limit, 'type', 'unknown')}_limit"
    output = getattr(sample, "output", None)
    reason = getattr(output, "stop_reason", None) if output is not None else None
    if not reason:
        return None
    return "completed" if reason == "stop" else str(reason)


def _split_model(name: str) -> dict[str, str]:
    provider, sep, model = name.partition("/")
    return {"model": model, "provider": provider} if sep and model else {"model": name}


def _nuggets(metadata: Any) -> list[dict[str, str]] | None:
    value = metadata.get("nuggets") if isinstance(metadata, dict) else None
    if not isinstance(value, list) or not value:
        return None
    out: list[dict[str, str]] = []
    for item in value:
        if isinstance(item, str) and item.strip():
            out.append({"text": item})
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            nugget = {"text": item["text"]}
            if item.get("importance") in ("vital", "okay"):
                nugget["importance"] = item["importance"]
            out.append(nugget)
        else:
            return None
    return out


class _Costs:
    def __init__(self, prices: dict[str, Price]) -> None:
        self.prices = prices
        self.unpriced: set[str] = set()

    def of(self, usage: dict[str, Any], tool_calls: int, seconds: float | None) -> dict[str, Any]:
        tokens_in = tokens_out = 0
        usd: float | None = 0.0
        for model, u in (usage or {}).items():
            t_in = int(getattr(u, "input_tokens", 0) or 0)
            t_out = int(getattr(u, "output_tokens", 0) or 0)
            tokens_in += t_in
            tokens_out += t_out
            price = _price_for(str(model), self.prices)
            recorded = getattr(u, "total_cost", None)
            if price is not None:
                spent: float | None = (t_in * price.input + t_out * price.output) / PER_MILLION
            elif isinstance(recorded, int | float) and math.isfinite(recorded):
                spent = float(recorded)
            else:
                spent = None
                self.unpriced.add(str(model))
            usd = None if usd is None or spent is None else usd + spent
        cost: dict[str, Any] = {
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "tool_calls": tool_calls,
        }
        if usd is not None and usage:
            cost["usd"] = round(usd, 10)
        if isinstance(seconds, int | float) and math.isfinite(seconds) and seconds >= 0:
            cost["wall_seconds"] = round(float(seconds), 3)
        return cost


def _success_of(
    sample: Any, scorer: str | None, success_value: float, to_float: Any, shown: str
) -> tuple[bool | None, str | None, Any]:
    """``(success, scorer name, raw value)`` of one sample from its scores."""
    scores = getattr(sample, "scores", None) or {}
    if not scores:
        return None, None, None
    if scorer is None:
        if len(scores) > 1:
            raise UsageError(
                f"{shown}: the samples have several scores ({', '.join(sorted(scores))}); say which gives "
                "success with --scorer NAME"
            )
        scorer = next(iter(scores))
    score = scores.get(scorer)
    if score is None:
        return None, None, None
    value = score.value
    if isinstance(value, dict | list):
        raise UsageError(
            f"{shown}: scorer {scorer!r} gives a {type(value).__name__} per sample, not one value; choose a "
            "scorer with one value per sample (--scorer NAME)"
        )
    number = float(to_float(value))
    if math.isnan(number):
        return None, scorer, value
    return number >= success_value, scorer, value


def import_inspect(paths: Sequence[Path], options: ImportOptions, *, root: Path) -> ImportOutcome:
    """Read Inspect AI logs into trials (and a corpus of the pages read, and results from the Inspect
    scores); write them atomically. Raises :class:`InvalidInputError` (unreadable log, inspect_ai missing)
    or :class:`UsageError`."""
    trials, pages, results, outcome = inspect_trials(paths, options, root=root)
    _write(trials, pages, results, options, outcome, root)
    return outcome


def inspect_trials(
    paths: Sequence[Path], options: ImportOptions, *, root: Path
) -> tuple[list[Trial], PageCollector, list[GradedResult], ImportOutcome]:
    """The trials of Inspect AI logs, the pages the agents read and the result lines of the Inspect scores
    (nothing written)."""
    from graderctl.store.inspect_logs import iter_samples, log_files, read_header

    shown_of = {p: display_path(p, root) for p in paths}
    files = log_files(list(paths), shown_of)
    headers = []
    for path in files:
        shown = display_path(path, root)
        headers.append((path, shown, read_header(path, shown)))
    task_names = {str(h.eval.task) for _, _, h in headers}
    prefix_tasks = len(task_names) > 1
    outcome = ImportOutcome(
        source="inspect",
        inputs=[shown for _, shown, _ in headers],
        output=display_path(options.output, root),
    )
    to_float: Any = None
    if options.results_output is not None:
        from inspect_ai.scorer import value_to_float

        to_float = value_to_float()
    pages = PageCollector()
    costs = _Costs(options.prices)
    trials: list[Trial] = []
    results: list[GradedResult] = []
    seen: dict[tuple[str, str], str] = {}
    scorers: set[str] = set()
    for path, shown, header in headers:
        status = str(getattr(header, "status", ""))
        if status and status != "success":
            outcome.notes.append(f"{shown}: the eval's status is {status!r}: importing the samples it holds")
        model = str(header.eval.model)
        task = str(header.eval.task)
        n_before = len(trials)
        for sample in iter_samples(path, shown):
            sample_id = str(sample.id)
            task_id = f"{task}/{sample_id}" if prefix_tasks else sample_id
            trial_id = f"{task_id}-e{sample.epoch}"
            key = (task_id, trial_id)
            if key in seen:
                raise InvalidInputError(
                    f"{shown}: trial {trial_id} of task {task_id} is also in {seen[key]}",
                    [
                        Problem(
                            file=shown,
                            message=f"sample {sample_id!r} epoch {sample.epoch} of task {task!r} is in two "
                            "logs",
                            expected="each sample and epoch once",
                            fix="import each run (each model) into its own trials file: pass@k is measured "
                            "per run",
                        )
                    ],
                )
            seen[key] = shown
            messages = list(getattr(sample, "messages", None) or [])
            tool_calls = collect_pages(messages, pages, options.tools)
            metadata = getattr(sample, "metadata", None) or {}
            record: dict[str, Any] = {
                "task_id": task_id,
                "trial_id": trial_id,
                "generator": _split_model(model),
                "task": {"question": _question(sample.input)},
                "report": {"text": _final_answer(sample)},
                "cost": costs.of(
                    getattr(sample, "model_usage", None) or {},
                    tool_calls,
                    getattr(sample, "total_time", None),
                ),
                "trajectory": f"{shown}#{sample_id}/e{sample.epoch}",
            }
            nuggets = _nuggets(metadata)
            if nuggets:
                record["task"]["nuggets"] = nuggets
            if isinstance(metadata, dict) and isinstance(metadata.get("category"), str):
                record["category"] = metadata["category"]
            stop = _stop_reason(sample)
            if stop is not None:
                record["stop_reason"] = stop
            trial = Trial.model_validate(record)
            trials.append(trial)
            if options.results_output is not None:
                success, scorer, value = _success_of(
                    sample, options.scorer, options.success_value, to_float, shown
                )
                if scorer is not None:
                    scorers.add(scorer)
                line = _result_line(trial, success, {"scorer": scorer, "value": value, "log": shown})
                error = getattr(sample, "error", None)
                if success is None and error is not None:
                    message = str(getattr(error, "message", "") or "").strip()
                    line.reason = "the sample failed in Inspect" + (f": {message[:300]}" if message else "")
                results.append(line)
        if len(trials) == n_before:
            outcome.notes.append(f"{shown}: the log holds no sample")
    if costs.unpriced:
        outcome.notes.append(
            "no price for model(s) "
            + ", ".join(sorted(costs.unpriced))
            + ": cost.usd is left out (give --price MODEL=IN/OUT or --prices FILE)"
        )
    if options.results_output is not None and options.scorer is not None and options.scorer not in scorers:
        raise UsageError(f"--scorer {options.scorer!r}: no sample has a score of that name")
    if options.results_output is not None and not scorers and trials:
        outcome.notes.append("no sample has a score: every result's success is null (was the eval scored?)")
    if options.results_output is not None:
        outcome.results = ImportedResults(
            scorer=", ".join(sorted(scorers)) or None, successes=0, failures=0, null=0
        )
    outcome.epochs = sorted({int(t.trial_id.rsplit("-e", 1)[1]) for t in trials})
    return trials, pages, results, outcome


def log_trials_and_pages(path: Path, root: Path) -> tuple[list[Trial], list[CorpusDocument]]:
    """An Inspect AI log's trials and the pages its agents read (for ``units`` given a log directly)."""
    trials, pages, _, _ = inspect_trials([path], ImportOptions(output=path), root=root)
    return trials, pages.documents()


def _result_line(trial: Trial, success: bool | None, source: dict[str, Any]) -> GradedResult:
    """A result line whose success is the harness's own; only what applies is set (and so written)."""
    line = GradedResult(task_id=trial.task_id, trial_id=trial.trial_id, success=success)
    if success is None:
        line.reason = "no score for this trial in the source (an error, or not scored)"
    if trial.generator is not None:
        line.generator = type(trial.generator).model_validate(trial.generator.model_dump(exclude_none=True))
    if trial.stop_reason is not None:
        line.stop_reason = trial.stop_reason
    if trial.cost is not None:
        line.cost = Cost.model_validate(trial.cost.model_dump(exclude_none=True))
    line.imported_score = ImportedScore.model_validate({k: v for k, v in source.items() if v is not None})
    return line


# --- JSON Lines with a field mapping --------------------------------------------------------------

#: Mapping targets: short name -> the trial field it fills (dotted).
TARGETS: dict[str, str] = {
    "task_id": "task_id",
    "trial_id": "trial_id",
    "report": "report.text",
    "report.text": "report.text",
    "report.claims": "report.claims",
    "report.sources": "report.sources",
    "question": "task.question",
    "task.question": "task.question",
    "nuggets": "task.nuggets",
    "task.nuggets": "task.nuggets",
    "model": "generator.model",
    "generator.model": "generator.model",
    "provider": "generator.provider",
    "generator.provider": "generator.provider",
    "category": "category",
    "stop_reason": "stop_reason",
    "trajectory": "trajectory",
    "input_tokens": "cost.input_tokens",
    "output_tokens": "cost.output_tokens",
    "usd": "cost.usd",
    "tool_calls": "cost.tool_calls",
    "wall_seconds": "cost.wall_seconds",
    "success": "success",
}
_REQUIRED = ("task_id", "report.text")


def parse_mapping(specs: Sequence[str]) -> dict[str, str]:
    """``--map target=path[,target=path...]`` (repeatable) -> trial field -> record path."""
    out: dict[str, str] = {}
    for spec in specs:
        for part in spec.split(","):
            if not part.strip():
                continue
            target, sep, path = part.partition("=")
            target, path = target.strip(), path.strip()
            if not sep or not path:
                raise UsageError(f"--map takes target=path pairs, comma-separated; got {part.strip()!r}")
            if target not in TARGETS:
                raise UsageError(f"--map: unknown target {target!r}; known: {', '.join(sorted(TARGETS))}")
            field_name = TARGETS[target]
            if field_name in out:
                raise UsageError(f"--map gives {field_name} twice")
            out[field_name] = path
    missing = [t for t in _REQUIRED if t not in out]
    if missing:
        raise UsageError(
            "--map must say where "
            + " and ".join(missing)
            + " are (e.g. --map task_id=id,report=output.text)"
        )
    return out


_MISSING = object()


def _get_path(record: Any, path: str) -> Any:
    value = record
    for part in path.split("."):
        if isinstance(value, dict):
            if part not in value:
                return _MISSING
            value = value[part]
        elif isinstance(value, list) and re.fullmatch(r"-?\d+", part):
            index = int(part)
            if not -len(value) <= index < len(value):
                return _MISSING
            value = value[index]
        else:
            return _MISSING
    return value


def _as_text(value: Any) -> Any:
    """Message content as a string: a string, or the text parts of a list of content items."""
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        texts = [v.get("text") for v in value if isinstance(v.get("text"), str)]
        if texts:
            return "\n".join(texts)
    return value


def _set_path(record: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = record
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


_SUCCESS_WORDS = {"c": True, "i": False, "correct": True, "incorrect": False, "true": True, "false": False}


def _success_value(value: Any, threshold: float) -> bool | str | None:
    """A mapped success value as a boolean; a string problem when it cannot be read."""
    if value is None or value is _MISSING:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return None if math.isnan(value) else float(value) >= threshold
    if isinstance(value, str) and value.strip().lower() in _SUCCESS_WORDS:
        return _SUCCESS_WORDS[value.strip().lower()]
    return f"expected true/false, a number or C/I, got {json.dumps(value)[:60]}"


def jsonl_trials(
    path: Path, options: ImportOptions, *, root: Path
) -> tuple[list[Trial], list[GradedResult], ImportOutcome]:
    shown = display_path(path, root)
    mapping = options.mapping
    sink = ProblemSink()
    data = read_bytes(path, shown)
    trials: list[Trial] = []
    results: list[GradedResult] = []
    numbering: dict[str, int] = {}
    seen: dict[tuple[str, str], int] = {}
    costs = _Costs(options.prices)
    outcome = ImportOutcome(source="jsonl", inputs=[shown], output=display_path(options.output, root))
    last_open = not data.endswith(b"\n")
    total = data.count(b"\n") + (1 if last_open else 0)
    for number, raw in iter_json_lines(data, shown, sink):
        record = decode_json_line(raw, number, shown, sink, is_last=last_open and number == total)
        if record is None:
            continue
        if not isinstance(record, dict):
            sink.add(Problem(file=shown, line=number, message="not a JSON object", expected="an object"))
            continue
        trial: dict[str, Any] = {"task": {}, "report": {}}
        success: Any = _MISSING
        bad = False
        for target, source in mapping.items():
            value = _get_path(record, source)
            if target == "success":
                success = value
                continue
            if value is _MISSING or value is None:
                if target in _REQUIRED:
                    sink.add(
                        Problem(
                            file=shown,
                            line=number,
                            pointer="/" + source.replace(".", "/"),
                            message=f"no value for {target} at {source!r}",
                            expected=f"the record's {target}",
                            fix="fix the --map path, or the record",
                        )
                    )
                    bad = True
                continue
            if (
                target in ("task_id", "trial_id")
                and isinstance(value, int | float)
                and not isinstance(value, bool)
            ):
                value = str(value)
            if target in ("report.text", "task.question"):
                value = _as_text(value)
            _set_path(trial, target, value)
        if bad:
            continue
        task_id = trial.get("task_id")
        if isinstance(task_id, str) and "trial_id" not in trial:
            numbering[task_id] = numbering.get(task_id, 0) + 1
            trial["trial_id"] = f"{task_id}-{numbering[task_id]}"
        cost = trial.get("cost")
        model = (trial.get("generator") or {}).get("model")
        if isinstance(cost, dict) and "usd" not in cost and isinstance(model, str):
            price = _price_for(model, options.prices)
            t_in, t_out = cost.get("input_tokens"), cost.get("output_tokens")
            if price is not None and isinstance(t_in, int) and isinstance(t_out, int):
                cost["usd"] = round((t_in * price.input + t_out * price.output) / PER_MILLION, 10)
            elif price is None and options.prices:
                costs.unpriced.add(model)
        try:
            item = Trial.model_validate(trial)
        except ValidationError as exc:
            for error in exc.errors()[:5]:
                loc = ".".join(str(p) for p in error["loc"])
                sink.add(
                    Problem(
                        file=shown,
                        line=number,
                        pointer="/" + "/".join(str(p) for p in error["loc"]),
                        message=f"the mapped trial field {loc} is invalid: {error['msg']}",
                        got=json.dumps(error.get("input"), default=str)[:60],
                        fix="map a path that holds the right kind of value",
                    )
                )
            continue
        key = (item.task_id, item.trial_id)
        if key in seen:
            sink.add(
                Problem(
                    file=shown,
                    line=number,
                    message=f"trial {item.trial_id!r} of task {item.task_id!r} again (first on line "
                    f"{seen[key]})",
                    fix="map trial_id to a field that differs between the task's trials",
                )
            )
            continue
        seen[key] = number
        trials.append(item)
        if options.results_output is not None:
            if "success" not in mapping:
                raise UsageError(
                    "--results-output needs --map success=PATH (where the record says it passed)"
                )
            value = _success_value(success, options.success_value)
            if isinstance(value, str):
                sink.add(
                    Problem(
                        file=shown,
                        line=number,
                        pointer="/" + mapping["success"].replace(".", "/"),
                        message=f"cannot read success: {value}",
                    )
                )
                continue
            results.append(
                _result_line(
                    item,
                    value,
                    {"path": mapping["success"], "value": success if success is not _MISSING else None},
                )
            )
    sink.raise_if_any(shown)
    if costs.unpriced:
        outcome.notes.append(
            "no price for model(s) " + ", ".join(sorted(costs.unpriced)) + ": cost.usd is left out"
        )
    return trials, results, outcome


def import_jsonl(path: Path, options: ImportOptions, *, root: Path) -> ImportOutcome:
    trials, results, outcome = jsonl_trials(path, options, root=root)
    _write(trials, None, results, options, outcome, root)
    return outcome


# --- writing --------------------------------------------------------------------------------------


def _write(
    trials: list[Trial],
    pages: PageCollector | None,
    results: list[GradedResult],
    options: ImportOptions,
    outcome: ImportOutcome,
    root: Path,
) -> None:
    from graderctl.store.trials import write_imported

    if not trials:
        raise InvalidInputError(
            f"{', '.join(outcome.inputs)}: no trial to import",
            [Problem(file=outcome.inputs[0] if outcome.inputs else "?", message="no sample or record found")],
        )
    outputs = [p for p in (options.output, options.corpus_output, options.results_output) if p is not None]
    if len({p.resolve() for p in outputs}) != len(outputs):
        raise UsageError("--output, --corpus-output and --results-output must be different files")
    documents = pages.documents() if pages is not None else []
    if options.corpus_output is not None:
        if pages is None:
            raise UsageError("--corpus-output: this source records no pages read")
        outcome.corpus_output = display_path(options.corpus_output, root)
        outcome.documents = len(documents)
    elif documents:
        outcome.notes.append(
            f"the agents read {len(documents)} page(s) through tools: add --corpus-output CORPUS to keep "
            "them for the source-existence check"
        )
    if options.results_output is not None:
        outcome.results_output = display_path(options.results_output, root)
        outcome.results = ImportedResults(
            scorer=outcome.results.scorer if outcome.results is not None else None,
            successes=sum(1 for r in results if r.success is True),
            failures=sum(1 for r in results if r.success is False),
            null=sum(1 for r in results if r.success is None),
        )
    write_imported(
        trials,
        options.output,
        documents=documents,
        corpus_output=options.corpus_output,
        results=results,
        results_output=options.results_output,
    )
    outcome.trials = len(trials)
    outcome.tasks = len({t.task_id for t in trials})
    outcome.generators = sorted(
        {
            f"{t.generator.provider}/{t.generator.model}" if t.generator.provider else t.generator.model
            for t in trials
            if t.generator is not None
        }
    )
    costs = [t.cost for t in trials if t.cost is not None]
    usds = [c.usd for c in costs]
    outcome.cost = ImportedCost(
        input_tokens=sum(c.input_tokens or 0 for c in costs),
        output_tokens=sum(c.output_tokens or 0 for c in costs),
        usd=round(sum(u for u in usds if u is not None), 6)
        if usds and all(u is not None for u in usds)
        else None,
    )
