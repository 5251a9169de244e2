"""Open graderctl's HTML pages in real headless Chromium: no console message, no request, charts drawn, the
filter script ran; and take screenshots for a person to look at.

For every page:

1. ``chromium --headless --dump-dom --enable-logging=stderr --v=0`` loads it; every ``CONSOLE`` line Chromium
   logs (errors, warnings, Content-Security-Policy violations, uncaught exceptions) is a failure, since the
   pages log nothing themselves. The DOM after scripts ran must hold the page's ``<svg>`` charts, and its
   filter bars must be shown (the inline script un-hides them, so a script error would leave them hidden).
2. The same page *without* its Content-Security-Policy is loaded through an HTTP proxy on 127.0.0.1 that
   records every request Chromium makes (``--proxy-server``, loopback not bypassed): the page must make none,
   not merely have them blocked. Chromium's own calls to Google's update and sign-in services (made with or
   without a page; seen for an empty page first) are left out unless the page names their host.
3. ``--screenshot --window-size=1200,HEIGHT`` writes a PNG per page to ``--screenshots``.

Pages: the files given, or with ``--render DIR`` a set rendered from the project (the shipped calibration
reports through ``graderctl report``, and every saved report given with ``--report``).

    .venv/bin/python benchmarks/html_chromium.py --render /tmp/pages --screenshots /tmp/shots
    .venv/bin/python benchmarks/html_chromium.py page.html other.html

Exit 0 when every page passes, 1 otherwise, 2 when Chromium is not installed.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    # the browser's own services (component updates, clock, sign-in), so the proxy sees only the page's
    "--disable-component-update",
    "--disable-sync",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,AccountConsistency",
    "--no-pings",
]


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class _Recorder(BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str]]] = []

    def _record(self) -> None:
        _Recorder.seen.append((_host(self.command, self.path), f"{self.command} {self.path}"))
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_HEAD = do_CONNECT = do_PUT = do_OPTIONS = _record

    def log_message(self, format: str, *args: object) -> None:
        return


def _host(command: str, path: str) -> str:
    if command == "CONNECT":
        return path.rsplit(":", 1)[0]
    return urlsplit(path).hostname or path


def _proxied(browser: str, page: Path, proxy_port: int) -> list[tuple[str, str]]:
    """The requests Chromium sends through the recording proxy while it loads ``page``."""
    before = len(_Recorder.seen)
    _run(
        browser,
        [
            f"--proxy-server=http://127.0.0.1:{proxy_port}",
            "--proxy-bypass-list=<-loopback>",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
    )
    return _Recorder.seen[before:]


#: Chromium's own services (updates, sign-in, clock); it may call them whenever it likes, with or without a
#: page. A request to one of them is the browser's, unless the page names the host itself.
BROWSER_SERVICE_DOMAINS = (
    ".google.com",
    ".googleapis.com",
    ".gvt1.com",
    ".gstatic.com",
    ".googleusercontent.com",
)


def _browsers_own(host: str, source: str, baseline: set[str]) -> bool:
    if host in source:
        return False
    return host in baseline or ("." + host).endswith(BROWSER_SERVICE_DOMAINS)


def browser_hosts(browser: str, proxy_port: int) -> set[str]:
    """Hosts Chromium contacts by itself (updates, sign-in) while loading an empty page: not the page's."""
    with tempfile.TemporaryDirectory(prefix="graderctl-empty-") as tmp:
        empty = Path(tmp) / "empty.html"
        empty.write_text("<!DOCTYPE html><title>empty</title>", encoding="utf-8")
        return {host for host, _ in _proxied(browser, empty, proxy_port)}


def _run(browser: str, args: list[str], timeout: float = 90) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="graderctl-chromium-") as profile:
        return subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def check_page(
    browser: str, page: Path, *, proxy_port: int, ignore: set[str], screenshot: Path | None, height: int
) -> list[str]:
    """Problems found with ``page`` (empty when it passes)."""
    problems: list[str] = []
    url = page.resolve().as_uri()
    loaded = _run(browser, ["--enable-logging=stderr", "--v=0", "--dump-dom", url])
    if loaded.returncode != 0:
        problems.append(f"chromium exited {loaded.returncode}: {loaded.stderr[-500:]}")
    console = [line for line in loaded.stderr.splitlines() if ":CONSOLE" in line]
    problems += [f"console: {line.split('] ', 1)[-1]}" for line in console]
    dom = loaded.stdout
    source = page.read_text(encoding="utf-8")
    want_svgs = source.count("<svg ")
    got_svgs = dom.count("<svg ")
    if got_svgs < want_svgs or (want_svgs and got_svgs == 0):
        problems.append(f"{got_svgs} of {want_svgs} charts in the rendered DOM")
    bars = re.findall(r"<div[^>]*data-filter=[^>]*>", dom)
    if "data-filter=" in source and (not bars or any(" hidden" in b for b in bars)):
        problems.append("the filter bar is still hidden: the inline script did not run")
    if "<main>" not in dom:
        problems.append("no <main> in the rendered DOM")

    # the same page without its CSP, through a recording proxy: it must not even try to fetch anything
    stripped = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", source, count=1)
    with tempfile.TemporaryDirectory(prefix="graderctl-nocsp-") as tmp:
        bare = Path(tmp) / page.name
        bare.write_text(stripped, encoding="utf-8")
        requests = _proxied(browser, bare, proxy_port)
    problems += [f"request: {line}" for host, line in requests if not _browsers_own(host, source, ignore)]

    if screenshot is not None:
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        size = f"--window-size=1200,{height}"
        shot = _run(browser, ["--hide-scrollbars", f"--screenshot={screenshot}", size, url])
        if not screenshot.is_file():
            problems.append(f"no screenshot written: {shot.stderr[-300:]}")
    return problems


def render_pages(out: Path, reports: list[Path]) -> list[Path]:
    """The pages of the shipped calibration reports (and of ``reports``), through ``graderctl report``."""
    sources = sorted((ROOT / "reports").glob("*/*.json")) + reports
    command = [sys.executable, "-m", "graderctl", "--root", str(ROOT), "report", *map(str, sources)]
    command += ["--output", str(out)]
    subprocess.run(command, check=True)
    return sorted(out.glob("*.html"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pages", nargs="*", type=Path)
    parser.add_argument("--render", type=Path, help="Render the project's pages into this folder.")
    parser.add_argument(
        "--report", type=Path, action="append", default=[], help="A saved report to render too."
    )
    parser.add_argument("--screenshots", type=Path, help="Write a screenshot of each page here.")
    parser.add_argument("--height", type=int, default=2000, help="Screenshot window height.")
    args = parser.parse_args(argv)

    browser = find_browser()
    if browser is None:
        print("chromium is not installed (apt-get install -y chromium): nothing checked", file=sys.stderr)
        return 2
    pages = list(args.pages)
    if args.render:
        pages += render_pages(args.render, args.report)
    if not pages:
        parser.error("give pages, or --render DIR")

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    failed = 0
    try:
        version = subprocess.run([browser, "--version"], capture_output=True, text=True, check=False)
        port = int(server.server_address[1])
        print(f"{version.stdout.strip()}; {len(pages)} page(s); proxy recorder on 127.0.0.1:{port}")
        ignore = browser_hosts(browser, port)
        print(f"hosts the browser contacts by itself for an empty page (ignored): {sorted(ignore) or 'none'}")
        for page in pages:
            shot = args.screenshots / (page.stem + ".png") if args.screenshots else None
            problems = check_page(
                browser, page, proxy_port=port, ignore=ignore, screenshot=shot, height=args.height
            )
            size = page.stat().st_size / 1e3
            charts = page.read_text(encoding="utf-8").count("<svg ")
            if problems:
                failed += 1
                print(f"FAIL  {page} ({size:,.0f} kB, {charts} charts)")
                for p in problems:
                    print(f"      {p}")
            else:
                print(
                    f"ok    {page} ({size:,.0f} kB, {charts} charts): no console message, no request"
                    + (f", screenshot {shot}" if shot else "")
                )
    finally:
        server.shutdown()
    print(f"{len(pages) - failed} of {len(pages)} page(s) passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
