"""What ``graderctl report --format json`` prints about the HTML pages it wrote."""

from __future__ import annotations

from typing import Literal

from graderctl.models.base import OpenModel


class SitePage(OpenModel):
    """One page of the site, as the index lists it."""

    #: The page written.
    path: str
    #: The report document the page was rendered from (relative to the project root when inside it).
    source: str
    #: The report's ``type`` (``calibration``, ``comparison``, ``metrics``, ``probe``, ``tune``, ...).
    type: str
    grader: str
    set: str
    #: The verdict in words (``trusted``, ``not comparable``, ...).
    status: str
    #: ``true`` passed (trusted, comparable, no bias), ``false`` failed, ``null`` no verdict (metrics).
    passed: bool | None


class ReportSite(OpenModel):
    """The HTML pages written by ``graderctl report`` and their index."""

    schema_version: Literal[1] = 1
    type: Literal["report_site"] = "report_site"
    #: The index page (``index.html``) written.
    index: str
    pages: list[SitePage]
