"""The project tree's layout: the names of its folders and files, where the project is (:func:`find_root`)
and the corpus beside a trials file. Every command asks where the project is; this module answers without
loading the readers of graders and sets (:mod:`graderctl.store.project`)."""

from __future__ import annotations

import os
from pathlib import Path

GRADERS_DIR = "graders"
SETS_DIR = "calibration_sets"
REPORTS_DIR = "reports"
LOCK_NAME = "graders.lock"
MANIFEST_NAME = "manifest.toml"
SAMPLES_NAME = "samples.jsonl"
CORPUS_NAME = "corpus.jsonl"


def find_root(start: Path | None = None) -> Path:
    """The project root: ``$GRADERCTL_ROOT``, else the nearest folder upward holding ``graders/`` or
    ``calibration_sets/``, else the working directory."""
    env = os.environ.get("GRADERCTL_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / GRADERS_DIR).is_dir() or (folder / SETS_DIR).is_dir():
            return folder
    return here


def corpus_beside(trials_path: Path) -> Path | None:
    """The ``corpus.jsonl`` in the folder of a trials file, if there is one (score and units use it when no
    corpus is given)."""
    beside = trials_path.parent / CORPUS_NAME
    return beside if beside.is_file() else None
