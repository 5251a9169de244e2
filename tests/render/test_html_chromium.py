"""The pages in real headless Chromium (skipped when it is not installed): no console message, no request
(through a recording proxy on 127.0.0.1), charts in the rendered DOM, the filter script ran.

``benchmarks/html_chromium.py`` does the work (and takes screenshots); this runs it on a calibration page and
on a page that fetches an image and calls a missing function (which must fail)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import REPO

SCRIPT = REPO / "benchmarks" / "html_chromium.py"


def _browser() -> str | None:
    import shutil

    return next(
        (p for n in ("chromium", "chromium-browser", "google-chrome") if (p := shutil.which(n))), None
    )


@pytest.mark.slow
def test_pages_load_in_chromium_without_console_messages_or_requests(tmp_path: Path) -> None:
    if _browser() is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium): the browser check cannot run")
    site = tmp_path / "site"
    command = [sys.executable, "-m", "graderctl", "--root", str(REPO), "report", str(REPO / "reports")]
    subprocess.run([*command, "-q", "--output", str(site)], check=True, capture_output=True)
    page = next(site.glob("calibration--source-existence-core--*.html"))
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><main><img src="http://192.0.2.1/x.png"><script>nope()</script></main>')
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(page), str(bad)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    lines = done.stdout.splitlines()
    assert any(line.startswith("ok ") and page.name in line for line in lines), done.stdout + done.stderr
    # the check can fail: the bad page's request and script error are caught
    assert "FAIL  " + str(bad) in done.stdout and "192.0.2.1" in done.stdout and "nope" in done.stdout
    assert done.returncode == 1
