"""Real Inspect AI logs for the tests, made with ``inspect_ai`` itself (no hand-written log fixtures).

One task of four research questions run for four epochs with Inspect's ``mockllm/model`` provider. The mock
agent first fetches a page through a ``fetch_page`` tool (which returns HTML), then searches with a
``search_web`` tool (which returns text with URL citations, as Inspect's ``web_search`` does), then answers
with a report citing the page. Whether an answer is right depends on the question and on how many times
that question was answered before, so each question has a known number of correct epochs (``CORRECT``):
the per-sample counts are fixed whatever order Inspect runs the samples in. Inspect's ``includes()`` scorer
grades the answers, and the log carries the ``pass_at(k)`` and ``pass_k(k)`` epoch reducers for k = 1..4.
Every model call reports its token usage (``USAGE_TOOL_CALL``, ``USAGE_ANSWER``), so token counts and cost
are known exactly.
"""

from __future__ import annotations

import collections
import threading
from pathlib import Path
from typing import Any

# Imported at module level: Inspect reads the tools' type hints (this module is imported only when
# inspect_ai is installed).
from inspect_ai import Epochs, Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageTool, ContentText, ModelOutput, ModelUsage, UrlCitation, get_model
from inspect_ai.scorer import includes, pass_at, pass_k
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import Tool, tool

#: question id -> (question, page URL, correct answer, epochs answered correctly out of 4)
QUESTIONS: dict[str, tuple[str, str, str, int]] = {
    "q-solar": (
        "How much did solar capacity grow in 2023?",
        "https://energy.example.org/reports/solar-2023?utm_source=agent",
        "grew by 32 percent",
        1,
    ),
    "q-wind": ("How many offshore wind farms opened?", "https://news.example.com/wind", "eleven farms", 2),
    "q-grid": ("Which grid upgrade was approved?", "https://grid.example.net/upgrade", "northern link", 4),
    "q-hydro": ("Was the dam expanded?", "https://hydro.example.org/dam", "expanded in May", 0),
}
EPOCHS = 4
K_VALUES = (1, 2, 3, 4)
USAGE_TOOL_CALL = (100, 10)  # (input, output) tokens of each tool-calling turn
USAGE_ANSWER = (400, 60)  # of the answering turn
SEARCH_RESULT_URL = "https://search.example.com/result/{qid}"
#: Questions whose answer cites a page the agent never fetched (what source existence must catch).
CITES_UNREAD = {"q-hydro": "https://hydro.example.org/never-fetched"}


def cited_url(qid: str) -> str:
    return CITES_UNREAD.get(qid, QUESTIONS[qid][1])


def page_html(qid: str) -> str:
    question, _, answer, _ = QUESTIONS[qid]
    return (
        "<!doctype html><html><head><title>Report on "
        + qid
        + "</title><script>var tracking = 1;</script></head><body><nav>Home | About</nav>"
        + f"<h1>{question}</h1><p>According to the agency, output {answer} &amp; more.</p>"
        + "<p>The figures were published in the annual review.</p></body></html>"
    )


def search_snippet(qid: str) -> str:
    return f"A second source on {qid}: the annual review was widely reported."


def make_logs(log_dir: Path) -> dict[str, Any]:
    """Run the eval twice (an ``.eval`` and a ``.json`` log); returns ``{"eval": path, "json": path,
    "log": the EvalLog of the .eval run}``."""

    @tool
    def fetch_page() -> Tool:
        async def execute(url: str) -> str:
            """Fetch a web page and return its HTML.

            Args:
                url: The address of the page.
            """
            for qid, (_, page_url, _, _) in QUESTIONS.items():
                if page_url == url:
                    return page_html(qid)
            return "404 not found"

        return execute

    @tool
    def search_web() -> Tool:
        async def execute(query: str) -> list[ContentText]:
            """Search the web.

            Args:
                query: What to look for.
            """
            qid = query.split()[0]
            return [
                ContentText(
                    text=f"Results for {query}",
                    citations=[
                        UrlCitation(
                            url=SEARCH_RESULT_URL.format(qid=qid),
                            title=f"Search result on {qid}",
                            cited_text=search_snippet(qid),
                        )
                    ],
                )
            ]

        return execute

    def build_model() -> Any:
        answered: collections.Counter[str] = collections.Counter()
        lock = threading.Lock()

        def usage(pair: tuple[int, int]) -> ModelUsage:
            return ModelUsage(input_tokens=pair[0], output_tokens=pair[1], total_tokens=sum(pair))

        def outputs(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
            question = messages[0].text
            qid = next(q for q, (text, _, _, _) in QUESTIONS.items() if text == question)
            _, url, answer, correct = QUESTIONS[qid]
            tool_results = sum(1 for m in messages if isinstance(m, ChatMessageTool))
            if tool_results == 0:
                out = ModelOutput.for_tool_call("mockllm/model", "fetch_page", {"url": url})
            elif tool_results == 1:
                out = ModelOutput.for_tool_call("mockllm/model", "search_web", {"query": f"{qid} review"})
            else:
                with lock:
                    n = answered[qid]
                    answered[qid] += 1
                said = answer if n < correct else "no change"
                out = ModelOutput.from_content(
                    "mockllm/model",
                    f'The agency reports that output {said} [1]. It notes "the figures were published in '
                    f'the annual review" [1].\n\nSources:\n[1] Report on {qid}, {cited_url(qid)}',
                )
                out.usage = usage(USAGE_ANSWER)
                return out
            out.usage = usage(USAGE_TOOL_CALL)
            return out

        return get_model("mockllm/model", custom_outputs=outputs)

    def task() -> Task:
        return Task(
            dataset=[
                Sample(id=qid, input=question, target=answer, metadata={"category": "energy"})
                for qid, (question, _, answer, _) in QUESTIONS.items()
            ],
            solver=[use_tools(fetch_page(), search_web()), generate()],
            scorer=includes(),
            epochs=Epochs(EPOCHS, [*(pass_at(k) for k in K_VALUES), *(pass_k(k) for k in K_VALUES)]),
            name="energy_research",
        )

    out: dict[str, Any] = {}
    for fmt in ("eval", "json"):
        folder = log_dir / fmt
        logs = inspect_eval(
            task(),
            model=build_model(),
            log_dir=str(folder),
            log_format=fmt,
            display="none",
            log_level="error",
        )
        log = logs[0]
        if log.status != "success":
            raise RuntimeError(
                f"the test eval did not succeed: {log.error.message if log.error else log.status}"
            )
        out[fmt] = Path(log.location)
        if fmt == "eval":
            out["log"] = log
    out["errors_log"] = make_error_log(log_dir)
    out["errors"] = Path(out["errors_log"].location)
    return out


def make_error_log(log_dir: Path) -> Any:
    """A run in which one epoch of one sample fails (the provider raises; ``fail_on_error=False``): Inspect
    scores the other epochs only. Two samples x 4 epochs, answers alternating right and wrong."""
    calls: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()

    def outputs(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        question = messages[0].text
        with lock:
            n = calls[question]
            calls[question] += 1
        if question == "B?" and n == 1:
            raise RuntimeError("the provider failed")
        out = ModelOutput.from_content("mockllm/model", "yes" if n % 2 == 0 else "no")
        out.usage = ModelUsage(input_tokens=5, output_tokens=1, total_tokens=6)
        return out

    task = Task(
        dataset=[Sample(id="a", input="A?", target="yes"), Sample(id="b", input="B?", target="yes")],
        solver=[generate()],
        scorer=includes(),
        epochs=Epochs(EPOCHS, [pass_at(1), pass_at(2), pass_at(3), pass_k(1), pass_k(2), pass_k(3)]),
        name="flaky",
    )
    logs = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=outputs),
        log_dir=str(log_dir / "errors"),
        display="none",
        log_level="error",
        fail_on_error=False,
        retry_on_error=0,
    )
    return logs[0]


def reducer_values(log: Any) -> dict[str, float]:
    """What Inspect's epoch reducers give on the log: ``{"pass_at_2": mean over samples, ...}``."""
    return {score.reducer: score.metrics["accuracy"].value for score in log.results.scores}
