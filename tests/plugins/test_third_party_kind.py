"""A grader kind from another installed package works with no change to graderctl.

The "package" is a real distribution on ``sys.path`` of a fresh interpreter: a module plus a ``.dist-info``
folder whose ``entry_points.txt`` registers the kind in the ``graderctl.graders`` group — what ``pip install``
of a small plugin package leaves in site-packages. graderctl runs in a subprocess so that its registry is
built from scratch, as for a user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

KIND_MODULE = '''
from graderctl.models import Check
from graderctl.plugin import GraderKind, Verdict


class ShortClaims(GraderKind):
    """Accepts a claim of at most ``max_words`` words (a deliberately naive third-party grader)."""

    name = "short_claims"
    checks = frozenset({Check.claim_support})
    implementation_version = "7"

    class Params(GraderKind.Params):
        max_words: int = 12

    def grade_batch(self, inputs):
        out = []
        for i in inputs:
            n = len(i.claim.split())
            if n <= self.params.max_words:
                out.append(Verdict.accept(f"claim has {n} words (at most {self.params.max_words})"))
            else:
                out.append(Verdict.reject(f"claim has {n} words, more than {self.params.max_words}"))
        return out
'''

GRADER_TOML = """schema_version = 1
name = "short-claims"
version = 1
kind = "short_claims"
check = "claim_support"
description = "Third-party example: accepts short claims."

[params]
max_words = 15
"""


def _distribution(site: Path, dist: str, version: str, module: str, source: str, entry_points: str) -> None:
    (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[graderctl.graders]\n{entry_points}\n", encoding="utf-8")


def _site_with_short_claims(tmp_path: Path) -> Path:
    """A site folder where the package graderctl-short-claims 0.3.0 is installed."""
    site = tmp_path / "site"
    site.mkdir()
    _distribution(
        site,
        "graderctl-short-claims",
        "0.3.0",
        "short_claims_kind",
        KIND_MODULE,
        "short_claims = short_claims_kind:ShortClaims",
    )
    return site


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "graders" / "short-claims").mkdir(parents=True)
    (project / "graders" / "short-claims" / "v1.toml").write_text(GRADER_TOML, encoding="utf-8")
    shutil.copytree(
        REPO / "calibration_sets" / "claim-support-core", project / "calibration_sets" / "claim-support-core"
    )
    return project


def _run(project: Path, site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GRADERCTL_ROOT"}
    env["PYTHONPATH"] = os.pathsep.join([str(site), *filter(None, [env.get("PYTHONPATH")])])
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "graderctl", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_kind_from_another_package_is_listed_validated_and_calibrated(tmp_path: Path) -> None:
    site = _site_with_short_claims(tmp_path)
    project = _project(tmp_path)

    listed = _run(project, site, "list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    doc = json.loads(listed.stdout)
    kinds = {k["name"]: k for k in doc["kinds"]}
    assert kinds["short_claims"]["origin"] == "graderctl-short-claims 0.3.0"
    assert kinds["short_claims"]["checks"] == ["claim_support"]
    assert kinds["short_claims"]["implementation_version"] == "7"
    assert "claim_support" in kinds  # the built-in kinds are still there, from graderctl itself
    [grader] = doc["graders"]
    assert grader["ref"] == "short-claims@1" and grader["kind"] == "short_claims"
    assert grader["fingerprint"].startswith("sha256:")

    text = _run(project, site, "list")
    assert "short_claims" in text.stdout and "graderctl-short-claims 0.3.0" in text.stdout

    validated = _run(project, site, "validate", "--update-lock")
    assert validated.returncode == 0, validated.stdout + validated.stderr

    calibrated = _run(project, site, "calibrate", "short-claims@1", "--format", "json", "--quiet")
    assert calibrated.returncode in (0, 1), calibrated.stderr  # trusted or not: it ran
    report = json.loads(calibrated.stdout)
    report = report["reports"][0] if "reports" in report else report
    samples = report["samples"]
    assert len(samples) == 273
    reasons = {s["reason"] for s in samples}
    assert any("words" in r for r in reasons)  # the plugin's own reasons reach the report
    assert (project / "reports" / "claim-support-core" / "short-claims@1.json").is_file()


def test_a_broken_plugin_does_not_break_the_other_kinds(tmp_path: Path) -> None:
    site = _site_with_short_claims(tmp_path)
    _distribution(
        site,
        "graderctl-broken",
        "1.0",
        "broken_kind",
        "raise ImportError('needs libfoo')\n",
        "broken = broken_kind:Broken",
    )
    project = _project(tmp_path)
    (project / "graders" / "broken").mkdir()
    (project / "graders" / "broken" / "v1.toml").write_text(
        GRADER_TOML.replace('name = "short-claims"', 'name = "broken"').replace(
            'kind = "short_claims"', 'kind = "broken"'
        ),
        encoding="utf-8",
    )

    listed = _run(project, site, "list")
    assert listed.returncode == 0, listed.stderr
    assert "short_claims" in listed.stdout
    assert "grader kind 'broken' cannot be loaded" in listed.stderr
    assert "graderctl-broken 1.0" in listed.stderr and "needs libfoo" in listed.stderr

    ok = _run(project, site, "calibrate", "short-claims@1", "--no-write", "--quiet")
    assert ok.returncode in (0, 1), ok.stderr

    refused = _run(project, site, "calibrate", "broken@1", "--no-write")
    assert refused.returncode == 3
    assert "needs libfoo" in refused.stderr
    assert "Traceback" not in refused.stderr
