"""Build the development sets the shipped ``@2`` graders were tuned on (into ``imported_sets/``, git-ignored).

    .venv/bin/python benchmarks/dev_sets.py [--data ../shared/data] [--output imported_sets]

- ``claim-support-dev``: WiCE dev, strict reading (partially supported = bad; 349 claims with the pages they
  cite) plus the shipped ``claim-support-core`` (273 samples and its corpus);
- ``coverage-dev``: REALSumm (crowd-majority nugget presence, ties dropped) plus the shipped
  ``coverage-core``.

Each gets ``[split] tune_fraction = 0.5, seed = 14``: a deterministic split by group (a WiCE Wikipedia
article, a REALSumm document, a core seed), so ``graderctl tune`` sees half of each source and ``calibrate
--split certify`` judges the result on the other half. Ids are prefixed with the source (``wice:``,
``core:``, ...) and corpus documents likewise, so the two sources never collide. Then, as the definitions'
descriptions say::

    graderctl tune claim-support@1 --set imported_sets/claim-support-dev --band --target far=0.05,frr=0.7
    graderctl tune coverage@1 --set imported_sets/coverage-dev --band --target far=0.05,frr=0.7

Never commit what this writes (the data's licences; see ``shared/data/*/LICENSE``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from graderctl.services.importers import import_set  # noqa: E402

SPLIT = "\n[split]\ntune_fraction = 0.5\nseed = 14\n"


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _prefixed(sample: dict[str, Any], prefix: str) -> dict[str, Any]:
    sample = dict(sample)
    sample["id"] = f"{prefix}:{sample['id']}"
    if sample.get("group") is not None:
        sample["group"] = f"{prefix}:{sample['group']}"
    inp = sample.get("input", {})
    for ev in inp.get("evidence", []) or []:
        if "source_id" in ev:
            ev["source_id"] = f"{prefix}:{ev['source_id']}"
    return sample


def combine(name: str, check: str, parts: list[tuple[str, Path]], out: Path, policy: str, about: str) -> Path:
    folder = out / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    samples: list[dict[str, Any]] = []
    corpus: list[dict[str, Any]] = []
    for prefix, path in parts:
        samples += [_prefixed(s, prefix) for s in _lines(path / "samples.jsonl")]
        for doc in _lines(path / "corpus.jsonl"):
            corpus.append({**doc, "id": f"{prefix}:{doc['id']}"})
    (folder / "samples.jsonl").write_text(
        "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in samples), encoding="utf-8"
    )
    if corpus:
        (folder / "corpus.jsonl").write_text(
            "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in corpus), encoding="utf-8"
        )
    (folder / "manifest.toml").write_text(
        f'schema_version = 1\nname = "{name}"\nversion = 1\ncheck = "{check}"\n'
        f"description = {json.dumps(about)}\n"
        'source = "built by benchmarks/dev_sets.py from the development data and the shipped core set"\n'
        f"\n[policy]\n{policy}{SPLIT}",
        encoding="utf-8",
    )
    print(f"{folder}: {len(samples)} samples, {len(corpus)} corpus documents")
    return folder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--output", type=Path, default=REPO / "imported_sets")
    args = ap.parse_args()
    policy = "max_false_accept_rate = 0.1\nmax_false_reject_rate = 0.2\nmax_error_rate = 0.01\n"
    with tempfile.TemporaryDirectory(prefix="graderctl-dev-sets-") as tmp:
        t = Path(tmp)
        wice = import_set("wice", args.data / "wice", t, name="wice", root=REPO, partial="bad").path
        realsumm = import_set("realsumm", args.data / "realsumm", t, name="realsumm", root=REPO).path
        combine(
            "claim-support-dev",
            "claim_support",
            [("wice", wice), ("core", REPO / "calibration_sets" / "claim-support-core")],
            args.output,
            policy,
            "WiCE dev (strict: partially supported = bad) + claim-support-core, "
            "split by group for tune/certify",
        )
        combine(
            "coverage-dev",
            "coverage",
            [("realsumm", realsumm), ("core", REPO / "calibration_sets" / "coverage-core")],
            args.output,
            policy,
            "REALSumm (crowd majority) + coverage-core, split by group for tune/certify",
        )


if __name__ == "__main__":
    main()
