"""Self-contained HTML pages of graderctl's reports: one file each, no network, no script needed to read it,
charts drawn as inline SVG, printable. Every number is the JSON document's (see :mod:`._page`)."""

from graderctl.render.html.calibration import calibration_page
from graderctl.render.html.comparison import comparison_page
from graderctl.render.html.metrics import metrics_page
from graderctl.render.html.probe import probe_page
from graderctl.render.html.tune import tune_page

__all__ = ["calibration_page", "comparison_page", "metrics_page", "probe_page", "tune_page"]
