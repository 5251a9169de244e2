"""Reading what agents write: claims, citations and sources from a research report's text. Pure, no I/O.

:func:`parse_report` is the one entry point; :data:`PARSER` is its identity (name, version, fingerprint),
recorded in every result line that ``score`` writes, as a grader's is.
"""

from __future__ import annotations

from graderctl.parsing.report import (
    PARSER,
    PARSER_NAME,
    PARSER_VERSION,
    ParsedCitation,
    ParsedClaim,
    ParsedReport,
    ParsedSentence,
    ParsedSource,
    ParserIdentity,
    parse_report,
)

__all__ = [
    "PARSER",
    "PARSER_NAME",
    "PARSER_VERSION",
    "ParsedCitation",
    "ParsedClaim",
    "ParsedReport",
    "ParsedSentence",
    "ParsedSource",
    "ParserIdentity",
    "parse_report",
]
