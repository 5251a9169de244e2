"""Hostile inputs and a hostile environment end in a clear message and exit 2 or 3, never in exit 6.

Every command is run on malformed, deep, huge, duplicated, looping, unreadable and piped inputs, with outputs
that cannot be written (a folder, a full disk, a file-size limit, a read-only folder) and with an ASCII-only
terminal. The rule checked everywhere: no exit 6 ("internal error ... This is a bug"), no traceback, the
documented exit code, and with ``--format json`` exactly one JSON document on stdout.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graderctl.cli import _state, app

REPO = Path(__file__).resolve().parents[2]
PROJECT_PARTS = ("graders", "calibration_sets", "reports", "examples")
TRIALS = "examples/research-agent/trials.jsonl"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shipped project with graded results of the example trials (``results.jsonl``)."""
    root = tmp_path_factory.mktemp("hostile")
    for part in PROJECT_PARTS:
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("_build", "__pycache__"))
    code = _state.run(
        app,
        [
            "--root",
            str(root),
            "score",
            str(root / TRIALS),
            "-o",
            str(root / "results.jsonl"),
            "-q",
            "--allow-untrusted",
        ],
    )
    assert code == 0
    return root


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = _state.run(app, ["--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_clean_ending(code: int, out: str, err: str, allowed: set[int]) -> None:
    shown = f"exit {code}\nstdout: {out[-2000:]}\nstderr: {err[-2000:]}"
    assert code != 6, shown
    assert "Traceback" not in err and "internal error" not in err and "This is a bug" not in err, shown
    assert code in allowed, shown
    if code >= 2:
        assert err.strip(), "an error must say what went wrong on stderr\n" + shown


# --- hostile files -------------------------------------------------------------------------------------


def _first_line(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    return value


def _variants(base: dict[str, Any]) -> dict[str, bytes]:
    text = json.dumps(base)
    return {
        "empty": b"",
        "blank-lines": b"\n\n   \n",
        "binary": bytes(range(256)) * 3,
        "nul-byte": (text[:40] + "\x00" + text[40:] + "\n").encode(),
        "deep-array": b"[" * 10_000 + b"]" * 10_000 + b"\n",
        "deep-object": b'{"a":' * 10_000 + b"1" + b"}" * 10_000 + b"\n",
        "deep-field": (text[:-1] + ', "x": ' + "[" * 5_000 + "]" * 5_000 + "}\n").encode(),
        "huge-float": (text[:-1] + ', "cost": {"usd": 1e400}}\n').encode(),
        "huge-int": (text[:-1] + ', "x": ' + "9" * 5_000 + "}\n").encode(),
        "nan": (text[:-1] + ', "x": NaN}\n').encode(),
        "duplicate-keys": ('{"task_id": "dup", ' + text[1:] + "\n").encode(),
        "lone-surrogate": json.dumps(base).replace('": "', '": "\\ud800', 3).encode() + b"\n",
        "array": ("[" + text + "]\n").encode(),
        "pretty": (json.dumps(base, indent=2) + "\n").encode(),
        "nulls": (json.dumps({k: None for k in base}) + "\n").encode(),
        "wrong-types": (json.dumps({k: [1] for k in base}) + "\n").encode(),
        "truncated": text[: len(text) // 2].encode(),
        "bom-crlf": b"\xef\xbb\xbf" + text.encode() + b"\r\n",
    }


def _special_paths(folder: Path, tag: str) -> dict[str, Path]:
    loop_a, loop_b = folder / f"{tag}-loop-a.jsonl", folder / f"{tag}-loop-b.jsonl"
    if not loop_a.is_symlink():
        os.symlink(loop_b, loop_a)
        os.symlink(loop_a, loop_b)
    paths = {"folder": folder, "missing": folder / f"{tag}-missing.jsonl", "symlink-loop": loop_a}
    if Path("/proc/self/mem").exists():
        paths["unreadable"] = Path("/proc/self/mem")  # open() works, read() fails with EIO (even for root)
    return paths


def _hostile_files(project: Path, tag: str, base: dict[str, Any]) -> dict[str, Path]:
    folder = project / "hostile"
    folder.mkdir(exist_ok=True)
    out = {}
    for name, data in _variants(base).items():
        path = folder / f"{tag}-{name}.jsonl"
        path.write_bytes(data)
        out[name] = path
    out.update(_special_paths(folder, tag))
    return out


def _commands(project: Path) -> list[tuple[str, str, Callable[[Path, Path], list[str]]]]:
    """(input kind, command name, argv builder(input path, scratch folder))."""
    trials = str(project / TRIALS)
    results = str(project / "results.jsonl")
    return [
        ("trials", "validate", lambda p, o: ["validate", "--as", "trials", str(p)]),
        ("trials", "score", lambda p, o: ["score", str(p), "-o", str(o / "r.jsonl"), "--allow-untrusted"]),
        (
            "trials",
            "score-json",
            lambda p, o: ["score", str(p), "-o", str(o / "r.jsonl"), "--allow-untrusted", "--format", "json"],
        ),
        (
            "trials",
            "compare-replay",
            lambda p, o: (
                [
                    "compare",
                    "coverage@1",
                    "coverage@1",
                    "--replay",
                    results,
                    "--trials",
                    str(p),
                    "--no-write",
                    "-q",
                ]
            ),
        ),
        ("results", "validate", lambda p, o: ["validate", "--as", "results", str(p)]),
        ("results", "metrics", lambda p, o: ["metrics", str(p)]),
        ("results", "metrics-json", lambda p, o: ["metrics", str(p), "--format", "json"]),
        ("results", "metrics-weights", lambda p, o: ["metrics", results, "--weights", str(p)]),
        ("results", "metrics-calibration", lambda p, o: ["metrics", results, "--calibration", str(p)]),
        (
            "results",
            "rescore",
            lambda p, o: (
                [
                    "score",
                    "--rescore",
                    str(p),
                    "--grader",
                    "source-existence@1",
                    "-o",
                    str(o / "r.jsonl"),
                    "-q",
                ]
            ),
        ),
        (
            "results",
            "compare-replay",
            lambda p, o: ["compare", "coverage@1", "coverage@1", "--replay", str(p), "--no-write", "-q"],
        ),
        ("corpus", "validate", lambda p, o: ["validate", "--as", "corpus", str(p)]),
        (
            "corpus",
            "score",
            lambda p, o: ["score", trials, "--corpus", str(p), "-o", str(o / "r.jsonl"), "--allow-untrusted"],
        ),
    ]


def _cases() -> list[tuple[str, str, str]]:
    kinds = ("trials", "results", "corpus")
    names = [*_variants({"a": "b"}), "folder", "missing", "symlink-loop"]
    if Path("/proc/self/mem").exists():
        names.append("unreadable")
    commands = _commands(Path("."))
    return [(kind, cmd, name) for kind in kinds for k, cmd, _ in commands if k == kind for name in names]


@pytest.mark.parametrize(("kind", "command", "variant"), _cases())
def test_hostile_file_never_ends_in_a_bug(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, kind: str, command: str, variant: str
) -> None:
    base = {
        "trials": lambda: _first_line(project / TRIALS),
        "results": lambda: _first_line(project / "results.jsonl"),
        "corpus": lambda: _first_line(project / "examples/research-agent/corpus.jsonl"),
    }[kind]()
    path = _hostile_files(project, kind, base)[variant]
    build = next(b for k, c, b in _commands(project) if k == kind and c == command)
    code, out, err = run(capsys, project, *build(path, tmp_path))
    # 0/1: a hostile variant that is still valid (BOM + CRLF); 4: the grader could not grade (no corpus).
    assert_clean_ending(code, out, err, {0, 1, 2, 3, 4})
    if command == "validate":  # every variant but the BOM + CRLF one is invalid, each in its own words
        assert code == (0 if variant == "bom-crlf" else 3), (variant, out, err)
    if command.endswith("-json"):
        json.loads(out)  # exactly one document, success or error


def test_rescore_of_a_missing_results_file_exits_3(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    """Issue 11, item 14: it was 'internal error: FileNotFoundError ... This is a bug' (exit 6)."""
    missing = tmp_path / "missing.jsonl"
    code, _, err = run(
        capsys,
        project,
        "score",
        "--rescore",
        str(missing),
        "--grader",
        "source-existence@1",
        "-o",
        str(tmp_path / "new.jsonl"),
    )
    assert_clean_ending(code, "", err, {3})
    assert "missing.jsonl" in err and "no such file" in err


def test_cost_of_1e400_is_rejected_by_validate(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    trial = _first_line(project / TRIALS)
    trial["cost"] = {"usd": 1.0}
    path = tmp_path / "trials.jsonl"
    path.write_text(json.dumps(trial).replace('"usd": 1.0', '"usd": 1e400') + "\n")
    code, out, err = run(capsys, project, "validate", str(path))
    assert code == 3, out + err
    assert "/cost/usd" in out and "finite" in out
    code, out, err = run(capsys, project, "score", str(path), "-o", str(tmp_path / "r.jsonl"), "-q")
    assert_clean_ending(code, out, err, {3})
    assert not (tmp_path / "r.jsonl.partial").exists()


def test_duplicate_keys_are_a_validation_problem(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    trial = _first_line(project / TRIALS)
    text = json.dumps(trial)
    path = tmp_path / "trials.jsonl"
    # The second "stop_reason" would silently win in every JSON parser.
    path.write_text(text[:-1] + ', "stop_reason": "completed", "stop_reason": "max_turns"}\n')
    code, out, err = run(capsys, project, "validate", str(path))
    assert code == 3, out + err
    assert "duplicate key 'stop_reason'" in out and f"{path.name}:1" in out
    nested = tmp_path / "nested-trials.jsonl"
    nested.write_text(text.replace('"task": {', '"task": {"question": "q?", ', 1) + "\n")
    code, out, err = run(capsys, project, "validate", str(nested))
    assert code == 3 and "/task: duplicate key 'question'" in out, out + err
    code, out, err = run(capsys, project, "score", str(path), "-o", str(tmp_path / "r.jsonl"), "-q")
    assert_clean_ending(code, out, err, {3})
    assert "duplicate key" in err


def test_an_empty_partial_left_by_a_crash_does_not_block_the_next_run(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    output = tmp_path / "results.jsonl"
    (tmp_path / "results.jsonl.partial").write_bytes(b"")
    code, _out, err = run(
        capsys, project, "score", str(project / TRIALS), "-o", str(output), "--allow-untrusted"
    )
    assert code == 0, err
    assert "removed an empty" in err and output.is_file()
    assert not (tmp_path / "results.jsonl.partial").exists()


@pytest.mark.parametrize("err_no", [errno.ENOSPC, errno.EFBIG, errno.EROFS, errno.EACCES])
def test_a_failing_write_is_an_environment_error(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    err_no: int,
) -> None:
    """Disk full, file-size limit, read-only folder, no permission: exit 3 with the cause, nothing left half
    written (the empty partial file of a run that wrote no trial is removed too)."""

    def failing_fsync(fd: int) -> None:
        raise OSError(err_no, os.strerror(err_no))

    monkeypatch.setattr(os, "fsync", failing_fsync)
    output = tmp_path / "r.jsonl"
    for args in (
        ["metrics", str(project / "results.jsonl"), "--output", str(output)],
        ["score", str(project / TRIALS), "-o", str(output), "--allow-untrusted", "-q"],
        ["score", str(project / TRIALS), "-o", str(output), "--allow-untrusted", "--format", "json"],
    ):
        code, out, err = run(capsys, project, *args)
        assert_clean_ending(code, out, err, {3})
        assert _state.describe_os_error(OSError(err_no, "x")) in err
        if "json" in args:
            assert json.loads(out)["type"] == "error"
        assert not output.exists() and not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
        graded = tmp_path / "r.jsonl.partial"
        assert not graded.exists() or graded.read_bytes().strip()
        graded.unlink(missing_ok=True)


@pytest.mark.parametrize(
    "args",
    [
        ["metrics", "{results}", "--output", "{folder}"],
        ["metrics", "{results}", "--output", "{folder}", "--format", "json"],
        ["score", "{trials}", "--output", "{folder}", "--allow-untrusted"],
        ["score", "{trials}", "--output", "/", "--allow-untrusted"],
        ["calibrate", "coverage@1", "--no-write", "--output", "{folder}"],
        ["compare", "coverage@1", "coverage@1", "--no-write", "--output", "{folder}"],
        ["sets", "import", "wice", "{folder}", "--output", "{results}"],
    ],
)
def test_an_output_that_is_a_folder_is_bad_usage(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, args: list[str]
) -> None:
    values = {
        "results": str(project / "results.jsonl"),
        "trials": str(project / TRIALS),
        "folder": str(tmp_path),
    }
    before = (project / "results.jsonl").read_bytes()
    code, out, err = run(capsys, project, *[a.format(**values) for a in args])
    assert_clean_ending(code, out, err, {2})
    assert "folder" in err or "is a file" in err
    if "json" in args:
        assert json.loads(out)["exit_code"] == 2
    else:
        assert out == ""  # refused before anything ran or was printed
    assert (project / "results.jsonl").read_bytes() == before


def test_symlink_loops_under_graders_and_sets(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    root = tmp_path / "p"
    for part in ("graders", "calibration_sets"):
        shutil.copytree(project / part, root / part)
    (root / "graders" / "looping").mkdir()
    os.symlink("v1.toml", root / "graders" / "looping" / "v1.toml")
    os.symlink("b", root / "calibration_sets" / "a")
    os.symlink("a", root / "calibration_sets" / "b")
    for args in (["validate"], ["list"], ["list", "--format", "json"], ["calibrate", "--all", "--check"]):
        code, out, err = run(capsys, root, *args)
        assert_clean_ending(code, out, err, {3})
        assert "symbolic links" in err or "symlink" in err + out


@pytest.mark.parametrize(
    "args",
    [
        ["score", "{trials}", "-o", "{out}", "--allow-untrusted", "--timeout", "0"],
        ["score", "{trials}", "-o", "{out}", "--allow-untrusted", "--timeout", "nan"],
        ["score", "{trials}", "-o", "{out}", "--allow-untrusted", "--timeout", "-1"],
        ["metrics", "{results}", "--n-boot", "100000000000000000000"],
        ["metrics", "{results}", "--k", "1,,x"],
        ["calibrate", "a" * 5000, "--no-write"],
        ["probe", "../../etc/passwd", "--no-write"],
        ["compare", "x@y", "coverage@1", "--no-write"],
        ["score", "{trials}", "-o", "{out}", "--grader", "claim-support@99999999999999999999999"],
    ],
)
def test_hostile_options_are_refused_clearly(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, args: list[str]
) -> None:
    values = {
        "results": str(project / "results.jsonl"),
        "trials": str(project / TRIALS),
        "out": str(tmp_path / "r.jsonl"),
    }
    code, out, err = run(capsys, project, *[a.format(**values) for a in args])
    assert_clean_ending(code, out, err, {2, 3})


# --- in a separate process: the terminal, the process limits and pipes ---------------------------------


def _graderctl(
    project: Path, *args: str, env: dict[str, str] | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graderctl", "--root", str(project), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        env={**os.environ, **(env or {})},
        timeout=300,
        check=False,
        **kwargs,
    )


def test_an_ascii_only_terminal(project: Path, tmp_path: Path) -> None:
    """PYTHONIOENCODING=ascii: messages and reports full of '…', '–' and '→' still print (it was exit 6:
    UnicodeEncodeError); JSON stays one valid document."""
    env = {"PYTHONIOENCODING": "ascii"}
    runs = [
        (["score", str(project / TRIALS), "-o", str(tmp_path / "r.jsonl")], {5}),
        (["metrics", str(project / "results.jsonl"), "--format", "md"], {0}),
        (["metrics", str(project / "results.jsonl"), "--format", "json"], {0}),
        (["list"], {0}),
        (["score", str(project / TRIALS), "-o", str(tmp_path / "r.jsonl"), "--format", "json"], {5}),
    ]
    for args, allowed in runs:
        proc = _graderctl(project, *args, env=env)
        assert_clean_ending(proc.returncode, proc.stdout, proc.stderr, allowed)
        if "json" in args:
            json.loads(proc.stdout)


def test_a_file_size_limit(project: Path, tmp_path: Path) -> None:
    """RLIMIT_FSIZE: Python ignores SIGXFSZ, so a write past the limit fails with EFBIG: exit 3, and the
    trials graded before it are kept for --resume."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))

    output = tmp_path / "r.jsonl"
    proc = _graderctl(
        project, "score", str(project / TRIALS), "-o", str(output), "--allow-untrusted", preexec_fn=limit
    )
    assert_clean_ending(proc.returncode, proc.stdout, proc.stderr, {3})
    assert "file-size limit" in proc.stderr and "--resume" in proc.stderr
    proc = _graderctl(
        project, "score", str(project / TRIALS), "-o", str(output), "--allow-untrusted", "--resume"
    )
    assert proc.returncode == 0, proc.stderr
    assert len(output.read_text().splitlines()) == 25


@pytest.mark.skipif(
    os.geteuid() == 0, reason="root ignores file permissions, so a folder cannot be read-only"
)
def test_a_read_only_folder_and_an_unreadable_file(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    secret = tmp_path / "secret-results.jsonl"
    shutil.copy(project / "results.jsonl", secret)
    secret.chmod(0)
    try:
        proc = _graderctl(
            project, "score", str(project / TRIALS), "-o", str(folder / "r.jsonl"), "--allow-untrusted"
        )
        assert_clean_ending(proc.returncode, proc.stdout, proc.stderr, {3})
        assert "permission" in proc.stderr.lower()
        proc = _graderctl(project, "metrics", str(secret))
        assert_clean_ending(proc.returncode, proc.stdout, proc.stderr, {3})
    finally:
        folder.chmod(0o755)
        secret.chmod(0o644)


def test_reading_from_a_pipe(project: Path) -> None:
    results = (project / "results.jsonl").read_text(encoding="utf-8")
    trials = (project / TRIALS).read_text(encoding="utf-8")
    proc = _graderctl(project, "metrics", "/dev/stdin", "--format", "json", input=results)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["trials"] == 25
    proc = _graderctl(project, "validate", "--as", "trials", "/dev/stdin", input=trials)
    assert proc.returncode == 0, proc.stderr
    # Guessing what a pipe holds would consume it: ask for --as instead of validating the rest wrongly.
    proc = _graderctl(project, "validate", "/dev/stdin", input=trials)
    assert_clean_ending(proc.returncode, proc.stdout, proc.stderr, {3})
    assert "--as" in proc.stdout


def test_an_unknown_grader_names_the_project_and_root_option(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 11, item 20: a user running from the wrong folder learns about --root from the message."""
    (tmp_path / "graders").mkdir()
    code, _, err = run(capsys, tmp_path, "calibrate", "claim-support@1", "--no-write")
    assert code == 3, err
    assert "--root" in err and str(tmp_path) in err and "no graders found" in err
