"""The report parser's identity is pinned like a released grader's: a rule changed without a new version
fails here."""

from __future__ import annotations

from graderctl.parsing import PARSER, PARSER_NAME, PARSER_VERSION

#: (version, fingerprint) of every released parser version. Changing a rule changes the fingerprint: if the
#: change can alter what a report parses into, bump PARSER_VERSION and add a line; otherwise (a refactoring
#: that keeps every pattern) the fingerprint does not move.
RELEASED = {
    1: "sha256:4de471a6aceba53ada9a0e4df79b8393cf4c7bebcee3228142bca46643f92056",
    2: "sha256:ee617b6fea38c384a1ae084325ecdb649817af9406d3214b4a6c3080cdcb810d",
    3: "sha256:75e5bd77d54f562001e9e663b0bbfb97f5940b33cd18c94ade9c2959ef55b52f",
}


def test_parser_identity_is_pinned() -> None:
    assert PARSER.name == PARSER_NAME == "report-parser"
    assert PARSER.version == PARSER_VERSION
    assert RELEASED.get(PARSER.version) == PARSER.fingerprint, (
        f"the report parser's rules changed (now {PARSER.fingerprint}) but its version is still "
        f"{PARSER.version}: bump PARSER_VERSION in graderctl/parsing/report.py and pin the new fingerprint "
        "here"
    )
    assert PARSER.to_dict() == {
        "name": "report-parser",
        "version": PARSER_VERSION,
        "fingerprint": PARSER.fingerprint,
    }
