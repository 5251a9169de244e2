"""Build the research-agent example (corpus.jsonl, trials.jsonl, expected.json, README.md) from content.toml.

    .venv/bin/python examples/research-agent/_build/build.py            # (re)write the example
    .venv/bin/python examples/research-agent/_build/build.py --check    # exit 1 if the files are out of date

Every quote of a claim meant to be correct must occur in its document (up to typography and ellipses), every
intended flaw must really be one (a misquote or splice must not occur, a fabricated or mangled source must not
resolve to a corpus document), and the units a correct grader should fail are derived from the flaws and the
nuggets each claim covers: ``citation:<claim>/<source>``, ``claim:<claim>``, ``nugget:<n>`` (as ``score``
names them).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
import unicodedata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE.parent
sys.path.insert(0, str(OUT.parents[1] / "src"))

from graderctl.normalize import normalize_doi, normalize_url  # noqa: E402

MODELS = {
    "gpt-4o": {"model": "gpt-4o-2024-08-06", "provider": "openai"},
    "claude-3-5-sonnet": {"model": "claude-3-5-sonnet-20241022", "provider": "anthropic"},
    "llama-3.1-70b": {"model": "llama-3.1-70b-instruct", "provider": "meta"},
}
#: flaw -> (source_existence fails, claim_support fails)
FLAWS = {
    "misquote": (True, False),
    "spliced": (True, False),
    "fabricated": (True, True),
    "mangled": (True, True),
    "unsupported": (False, True),
    "negated": (False, True),
    "changed": (True, True),
}
ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|\[\.\.\.\])\s*")
_FOLD = str.maketrans(
    {"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " ", "\u00ad": None}
)


class ContentError(Exception):
    pass


def clean(text: str) -> str:
    return re.sub(r"[ \t\r\n]+", " ", text).strip()


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_FOLD)


def quote_in(quote: str, text: str) -> bool:
    """The quote's fragments (split at ellipses) occur in order in the text, up to typography."""
    pos = 0
    body = fold(text)
    for frag in ELLIPSIS.split(fold(quote)):
        if not frag:
            continue
        at = body.find(frag, pos)
        if at < 0:
            return False
        pos = at + len(frag)
    return True


def styled(doc: dict[str, Any], style: str | None) -> dict[str, str]:
    """How an agent wrote down the source: url and/or doi, sometimes in a variant spelling."""
    url, doi = doc["url"], doc.get("doi")
    if style in (None, "exact"):
        return {"url": url, **({"doi": doi} if doi else {})}
    if style == "utm":
        return {"url": url + ("&" if "?" in url else "?") + "utm_source=chatgpt.com"}
    if style == "http_slash":
        return {"url": "http://" + url.removeprefix("https://").rstrip("/") + "/"}
    if style == "no_www":
        return {"url": url.replace("://www.", "://", 1)}
    if style == "fragment":
        return {"url": url + "#:~:text=lithium"}
    if doi is None:
        raise ContentError(f"style {style!r} needs a DOI ({doc['key']})")
    return {
        "doi_only": {"doi": doi},
        "doi_link": {"doi": f"https://doi.org/{doi}"},
        "doi_prefix": {"doi": f"doi:{doi}"},
        "doi_upper": {"doi": doi.upper()},
    }[style]


def load() -> dict[str, Any]:
    return tomllib.loads((HERE / "content.toml").read_text(encoding="utf-8"))


def build(content: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    docs = {d["key"]: {**d, "text": clean(d["text"])} for d in content["doc"]}
    corpus = [
        {"id": d["id"], "url": d["url"], **({"doi": d["doi"]} if d.get("doi") else {}), "title": d["title"]}
        | {"text": d["text"]}
        for d in docs.values()
    ]
    urls = {normalize_url(d["url"]) for d in docs.values()}
    dois = {normalize_doi(d["doi"]) for d in docs.values() if d.get("doi")}
    trials: list[dict[str, Any]] = []
    expected: dict[str, Any] = {}
    for task in content["task"]:
        claims = {c["key"]: c for c in task["claim"]}
        fakes = {f["key"]: f for f in task.get("fake", [])}
        nuggets = [{"text": t, "importance": imp} for t, imp in task["nuggets"]]
        for c in task["claim"]:
            where = f"task {task['id']}, claim {c['key']}"
            flaw = c.get("flaw")
            if flaw and flaw not in FLAWS:
                raise ContentError(f"{where}: unknown flaw {flaw!r}")
            for cite in c["cites"]:
                if "doc" in cite:
                    text = docs[cite["doc"]]["text"]
                    found = quote_in(cite["quote"], text)
                    if flaw in ("misquote", "spliced", "changed") and found:
                        raise ContentError(f"{where}: the 'misquote' is in the document")
                    if flaw not in ("misquote", "spliced", "changed") and not found:
                        raise ContentError(f"{where}: quote not in {cite['doc']}: {cite['quote']!r}")
                    if cite.get("typographic") and cite["quote"] in text:
                        raise ContentError(f"{where}: a typographic quote should differ from the text")
                else:
                    fake = fakes[cite["fake"]]
                    if flaw not in ("fabricated", "mangled"):
                        raise ContentError(f"{where}: cites a fake source without a fabricated/mangled flaw")
                    if fake.get("url") and normalize_url(fake["url"]) in urls:
                        raise ContentError(f"{where}: the fake URL is in the corpus")
                    if fake.get("doi") and normalize_doi(fake["doi"]) in dois:
                        raise ContentError(f"{where}: the fake DOI is in the corpus")
            if flaw and not c.get("why"):
                raise ContentError(f"{where}: a flawed claim needs `why`")
        for t in task["trial"]:
            trial, exp = build_trial(task, t, docs, claims, fakes, nuggets)
            trials.append(trial)
            expected[t["id"]] = exp
    return corpus, trials, expected


def build_trial(
    task: dict[str, Any],
    t: dict[str, Any],
    docs: dict[str, dict[str, Any]],
    claims: dict[str, dict[str, Any]],
    fakes: dict[str, dict[str, Any]],
    nuggets: list[dict[str, str]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    styles = t.get("styles", {})
    sources: list[dict[str, Any]] = []
    source_ids: dict[str, str] = {}
    out_claims: list[dict[str, Any]] = []
    paragraphs: list[str] = []
    failed: dict[str, list[str]] = {"source_existence": [], "claim_support": [], "coverage": []}
    flaws: list[str] = []
    covered: set[int] = set()
    for p, group in enumerate(t["body"]):
        sentences = [t["intro"]] if p == 0 and t["intro"] else []
        for entry in group:
            if entry not in claims:
                sentences.append(entry)  # a literal sentence of the report
                continue
            c = claims[entry]
            cid = f"c{len(out_claims) + 1}"
            cites = []
            numbers = []
            for cite in c["cites"]:
                ref = cite.get("doc") or cite["fake"]
                if ref not in source_ids:
                    sid = f"s{len(sources) + 1}"
                    source_ids[ref] = sid
                    if "doc" in cite:
                        d = docs[ref]
                        sources.append({"id": sid, **styled(d, styles.get(ref)), "title": d["title"]})
                    else:
                        f = fakes[ref]
                        loc = {k: f[k] for k in ("url", "doi") if f.get(k)}
                        sources.append({"id": sid, **loc, "title": f["title"]})
                sid = source_ids[ref]
                numbers.append(sid[1:])
                cites.append({"source_id": sid, **({"quote": cite["quote"]} if cite.get("quote") else {})})
                flaw = c.get("flaw")
                if flaw and FLAWS[flaw][0]:
                    failed["source_existence"].append(f"citation:{cid}/{sid}")
            flaw = c.get("flaw")
            if flaw:
                flaws.append(f"{cid}: {flaw} ({c['why']})")
                if FLAWS[flaw][1]:
                    failed["claim_support"].append(f"claim:{cid}")
            covered.update(c.get("covers", []))
            out_claims.append({"id": cid, "text": c["text"], "citations": cites})
            marker = "".join(f"[{n}]" for n in numbers)
            sentences.append(
                c["text"][:-1] + f" {marker}." if c["text"].endswith(".") else c["text"] + marker
            )
        paragraphs.append(" ".join(sentences))
    if t["outro"]:
        paragraphs.append(t["outro"])
    if t["stop"] == "completed" and not 3 <= len(out_claims) <= 6:
        raise ContentError(
            f"trial {t['id']}: a completed report should make 3-6 claims, not {len(out_claims)}"
        )
    refs = "\n".join(f"[{s['id'][1:]}] {s['title']}. {s.get('url') or s.get('doi')}" for s in sources)
    text = "\n\n".join(paragraphs) + ("\n\nSources:\n" + refs if refs else "")
    missing_vital = [
        i + 1 for i, n in enumerate(nuggets) if n["importance"] == "vital" and i + 1 not in covered
    ]
    missing_okay = [
        i + 1 for i, n in enumerate(nuggets) if n["importance"] == "okay" and i + 1 not in covered
    ]
    failed["coverage"] = [f"nugget:{n}" for n in missing_vital]
    inp, outp, tools, usd, secs = t["cost"]
    trial = {
        "task_id": task["id"],
        "trial_id": t["id"],
        "category": task["category"],
        "generator": MODELS[t["model"]],
        "task": {"question": task["question"], "nuggets": nuggets},
        "report": {"text": text, "claims": out_claims, "sources": sources},
        "stop_reason": t["stop"],
        "cost": {
            "input_tokens": inp,
            "output_tokens": outp,
            "tool_calls": tools,
            "usd": usd,
            "wall_seconds": secs,
        },
    }
    exp = {
        "success": not any(failed.values()),
        "stop_reason": t["stop"],
        "model": MODELS[t["model"]]["model"],
        "intended": t["intended"],
        "flaws": flaws,
        "failed_units": {k: v for k, v in failed.items() if v},
        "okay_nuggets_absent": [f"nugget:{n}" for n in missing_okay],
    }
    return trial, exp


README_HEAD = """\
# Example: grading a research agent's trials

A small, self-contained example of agent trials for `graderctl score` (format: `graderctl schema trial`): 5 research tasks, 5
trials each (25 in all), and the 20 source pages they cite. Everything here is invented for the example: the
documents, figures, companies, people and studies do not exist, even where a site or URL pattern looks
familiar.

```bash
.venv/bin/graderctl validate --as corpus examples/research-agent/corpus.jsonl
.venv/bin/graderctl validate --as trials examples/research-agent/trials.jsonl
.venv/bin/graderctl score examples/research-agent/trials.jsonl \\
    --corpus examples/research-agent/corpus.jsonl --output /tmp/research-agent.results.jsonl --allow-untrusted
.venv/bin/graderctl metrics /tmp/research-agent.results.jsonl --k 1,2,3
```

(`score` grades only with graders trusted on the project's sets and refuses the others, exit 5;
`--allow-untrusted` scores with them anyway and marks every result they touch. See its `--help`.)

Each trial's report has several paragraphs, 3–6 claims (the two partial reports have fewer), a numbered source
list, and claims that cite those sources, usually with a quote. Sources are written the way agents write
them: exact URLs, URLs with tracking parameters or other harmless variants, DOIs in several spellings. The
trials mix correct work with the failures a grader must catch: fabricated sources, a mangled DOI and a
mangled arXiv URL, misquoted numbers, a spliced quote, unsupported and negated claims, missed vital nuggets,
a run stopped at the turn limit and one that ended in a tool error. Most trials come from gpt-4o-2024-08-06;
a few from claude-3-5-sonnet-20241022 and llama-3.1-70b-instruct. Every trial carries its cost.

## What a correct grader should say, trial by trial

`expected.json` holds the same information in machine-readable form. "Should fail" names the units in
`score`'s terms: `citation:<claim>/<source>` (source existence), `claim:<claim>` (claim support) and
`nugget:<n>` (coverage, vital nuggets only; a grader may also list absent *okay* nuggets, which do not fail
a trial). A correct grader passes every trial marked "success" and fails exactly the listed units of the
others.

| trial | model | stop | intended outcome | should fail |
|---|---|---|---|---|
"""

README_TAIL = """
## Files

- `corpus.jsonl`: the 20 source documents (`id`, `url`, `doi` where there is one, `title`, `text`).
- `trials.jsonl`: the 25 trials.
- `expected.json`: per trial, whether a correct grader should pass it and which units it should fail.
- `_build/content.toml` and `_build/build.py`: the hand-written content and the script that assembles and
checks the files above (`.venv/bin/python examples/research-agent/_build/build.py [--check]`). The script
verifies that every quote meant to be correct occurs in its document, that every intended misquote or splice
does not, and that fabricated and mangled sources resolve to no corpus document.
"""


def readme(expected: dict[str, Any]) -> str:
    rows = []
    for tid, e in expected.items():
        units = [u for us in e["failed_units"].values() for u in us]
        fail = "— (success)" if e["success"] else ", ".join(f"`{u}`" for u in units)
        rows.append(f"| `{tid}` | {e['model']} | {e['stop_reason']} | {e['intended']} | {fail} |")
    return README_HEAD + "\n".join(rows) + "\n" + README_TAIL


def render() -> dict[Path, str]:
    corpus, trials, expected = build(load())
    line = lambda r: json.dumps(r, ensure_ascii=False) + "\n"  # noqa: E731
    return {
        OUT / "corpus.jsonl": "".join(map(line, corpus)),
        OUT / "trials.jsonl": "".join(map(line, trials)),
        OUT / "expected.json": json.dumps(expected, ensure_ascii=False, indent=2) + "\n",
        OUT / "README.md": readme(expected),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the files on disk, write nothing")
    args = parser.parse_args(argv)
    try:
        files = render()
    except ContentError as exc:
        print(f"content error: {exc}", file=sys.stderr)
        return 2
    stale = [p for p, text in files.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if args.check:
        for p in stale:
            print(f"out of date: {p}", file=sys.stderr)
        return 1 if stale else 0
    for p, text in files.items():
        p.write_text(text, encoding="utf-8")
        print(f"wrote {p.relative_to(OUT.parents[1])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
