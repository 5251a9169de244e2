"""``source_existence`` with ``resolve = "online"``, against a real HTTP server on 127.0.0.1 started here."""

from __future__ import annotations

from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.support.page_server import QUOTE, PageServer
from tests.support.page_server import server as server  # the fixture

from graderctl.kinds.source_existence import SourceExistenceGrader, SourceExistenceParams
from graderctl.models.calset import Citation, CorpusDocument, SourceExistenceInput
from graderctl.plugin import Corpus, GradingContext, Verdict


def make_grader(
    server: PageServer, cache: Path | None, corpus: Corpus | None = None, **params: Any
) -> SourceExistenceGrader:
    p = SourceExistenceParams(
        resolve="online", doi_resolver=server.url("/doi/"), online_timeout=0.5, **params
    )
    return SourceExistenceGrader(p, GradingContext(corpus=corpus, cache_dir=cache))


def cite(
    url: str | None = None, quote: str | None = None, doi: str | None = None, **kw: Any
) -> SourceExistenceInput:
    return SourceExistenceInput(citation=Citation(url=url, doi=doi, quote=quote, **kw))


def grade(grader: SourceExistenceGrader, *inputs: SourceExistenceInput) -> list[Verdict]:
    try:
        return grader.grade_batch(list(inputs))
    finally:
        grader.close()


def test_404_rejected_200_with_quote_accepted_500_and_timeout_errors(
    server: PageServer, tmp_path: Path
) -> None:
    """Acceptance 3: a 404 URL is rejected, a 200 page containing the quote is accepted, a 500 or a timeout is
    an error (never accept or reject)."""
    v = grade(
        make_grader(server, tmp_path),
        cite(server.url("/gone"), QUOTE),
        cite(server.url("/page"), QUOTE),
        cite(server.url("/broken"), QUOTE),
        cite(server.url("/slow"), QUOTE),
        cite(server.url("/deleted")),
        cite(server.url("/page"), "the southern link was rejected"),
        cite(server.url("/text"), QUOTE),
    )
    gone, page, broken, slow, deleted, misquote, text = v
    assert gone.accepted is False and "HTTP 404" in gone.reason and "does not exist online" in gone.reason
    assert deleted.accepted is False and "HTTP 410" in deleted.reason
    assert page.accepted is True, page.reason
    assert "quote found" in page.reason and (page.details or {})["online"][0]["status"] == 200
    assert broken.is_error and "HTTP 500" in (broken.error or "") and broken.accepted is None
    assert slow.is_error and "timed out" in (slow.error or "") and slow.accepted is None
    # the fetched page is a corpus document: the quote check runs on its text (HTML turned into text)
    assert misquote.accepted is False and "not in the document" in misquote.reason
    assert text.accepted is True, text.reason
    assert all("graderctl/" in agent for agent in server.agents)  # a polite User-Agent


def test_second_run_makes_no_request(server: PageServer, tmp_path: Path) -> None:
    """Acceptance 3: the on-disk cache answers a second run; errors are not cached (tried again)."""
    inputs = [cite(server.url("/gone"), QUOTE), cite(server.url("/page"), QUOTE), cite(server.url("/broken"))]
    first = grade(make_grader(server, tmp_path), *inputs)
    assert sum(server.hits.values()) == 3
    server.hits.clear()
    second = grade(make_grader(server, tmp_path), *inputs)
    assert server.hits == Counter({"/broken": 1})  # only the error is asked again
    assert [(v.accepted, v.reason) for v in first[:2]] == [(v.accepted, v.reason) for v in second[:2]]
    assert [d["cached"] for v in second[:2] for d in (v.details or {})["online"]] == [True, True]
    # the same page cited twice in one run, with a tracking parameter: one request
    server.hits.clear()
    grade(
        make_grader(server, tmp_path / "fresh"),
        cite(server.url("/other"), "Nothing here"),
        cite(server.url("/other?utm_source=x"), "Nothing here"),
    )
    assert sum(server.hits.values()) == 1
    # without a cache folder (--no-cache): requests every run
    server.hits.clear()
    grade(make_grader(server, None), cite(server.url("/page")))
    grade(make_grader(server, None), cite(server.url("/page")))
    assert server.hits["/page"] == 2


def test_redirects_dois_and_identifier_agreement(server: PageServer, tmp_path: Path) -> None:
    v = grade(
        make_grader(server, tmp_path),
        cite(server.url("/moved"), QUOTE),
        cite(doi="10.1234/grid.2024", quote=QUOTE),
        cite(doi="doi:10.1234/nothing"),
        cite(server.url("/page"), doi="10.1234/grid.2024"),
        cite(server.url("/other"), doi="10.1234/grid.2024"),
    )
    moved, doi, no_doi, agree, disagree = v
    assert moved.accepted is True and "redirected" not in moved.reason
    assert (moved.details or {})["online"][0]["final_url"] == server.url("/page")
    assert doi.accepted is True, doi.reason
    assert no_doi.accepted is False and "HTTP 404" in no_doi.reason
    assert agree.accepted is True, agree.reason
    assert disagree.accepted is False and "the identifiers disagree" in disagree.reason


def test_corpus_first_and_connection_failure(server: PageServer, tmp_path: Path) -> None:
    corpus = Corpus([CorpusDocument(id="d1", url="https://example.org/known", text=f"Known: {QUOTE}.")])
    closed = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    refused_url = f"http://127.0.0.1:{closed.server_address[1]}/x"
    closed.server_close()  # nothing listens there now
    v = grade(
        make_grader(server, tmp_path, corpus),
        cite("https://example.org/known", QUOTE),
        cite(refused_url, QUOTE),
        cite("ftp://example.org/file"),
    )
    known, refused, not_http = v
    assert known.accepted is True and sum(server.hits.values()) == 0  # in the corpus: never fetched
    assert refused.is_error and "could not connect" in (refused.error or "")
    assert not_http.accepted is False and "not an http(s) address" in not_http.reason


def test_per_host_limit(server: PageServer, tmp_path: Path) -> None:
    inputs = [cite(server.url(f"/busy/{i}")) for i in range(6)]
    verdicts = grade(make_grader(server, tmp_path, online_per_host=2), *inputs)
    assert all(v.accepted for v in verdicts)
    assert server.max_in_flight == 2  # fetched at once, but never more than 2 at a time on one host


def test_default_is_corpus_only(server: PageServer, tmp_path: Path) -> None:
    grader = SourceExistenceGrader(
        SourceExistenceParams(), GradingContext(corpus=Corpus([]), cache_dir=tmp_path)
    )
    (v,) = grader.grade_batch([cite(server.url("/page"), QUOTE)])
    assert v.accepted is False and "no document in the corpus" in v.reason
    assert sum(server.hits.values()) == 0
    assert getattr(grader, "parallelism", None) is None  # the shipped grader still runs in processes


def test_page_longer_than_the_limit(server: PageServer, tmp_path: Path) -> None:
    start, end = grade(
        make_grader(server, tmp_path, online_max_bytes=1024),
        cite(server.url("/big"), QUOTE),
        cite(server.url("/big"), "Last: the end"),
    )
    assert start.accepted is True, start.reason  # in the part read
    assert end.is_error and "longer than online_max_bytes" in (end.error or "")  # never a reject
