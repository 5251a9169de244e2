"""A tiny external grader for the `command` kind's tests.

Reads one JSON line per sample on stdin and writes one verdict line per sample on stdout. It accepts a claim
that holds MARKER_GOOD. Special markers script failures: MARKER_CRASH (exit 3), MARKER_GARBAGE (a line that
is not JSON), MARKER_HANG (sleeps), MARKER_ERROR (reports an error), MARKER_SKIP (writes no line).
With --reverse it writes the verdicts in reverse order, with "index".
"""

import json
import sys
import time

reverse = "--reverse" in sys.argv
out = []
for raw in sys.stdin:
    if not raw.strip():
        continue
    line = json.loads(raw)
    inp = line["input"]
    text = inp.get("claim") or inp.get("report") or json.dumps(inp)
    docs = " ".join(d.get("text", "") for d in line.get("documents", {}).values())
    if "MARKER_CRASH" in text:
        print("boom: cannot grade this", file=sys.stderr)
        sys.exit(3)
    if "MARKER_HANG" in text:
        time.sleep(30)
    if "MARKER_SKIP" in text:
        continue
    if "MARKER_GARBAGE" in text:
        out.append("this is not json")
        continue
    if "MARKER_ERROR" in text:
        out.append(json.dumps({"index": line["index"], "error": "cannot parse the claim"}))
        continue
    accept = "MARKER_GOOD" in text or "MARKER_GOOD" in docs
    verdict = {"index": line["index"], "accept": accept, "score": 1.0 if accept else 0.0, "reason": "marker"}
    if not reverse:
        del verdict["index"]
    out.append(json.dumps(verdict))
if reverse:
    out.reverse()
print("\n".join(out))
