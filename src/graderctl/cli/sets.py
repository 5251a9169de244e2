"""``graderctl sets ...``: calibration-set tools (import public datasets)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Calibration-set tools.", no_args_is_help=True)
