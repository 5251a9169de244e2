"""How the services run a grader: the run options every grader-running command shares, and starting a
grader with its verdict cache.

The CLI declares the options once (``cli/_options.py``) and builds one :class:`RunOptions` from them; the
services pass it down to :func:`run_inputs`, which hands it to :func:`graderctl.runner.run_grader`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from graderctl.errors import GraderctlError, GraderRunError
from graderctl.models.calset import SampleInput
from graderctl.plugin import Corpus, GraderKind, Verdict
from graderctl.runner import ProgressCallback, VerdictStore, run_grader
from graderctl.store.project import LoadedGrader


@dataclass(frozen=True)
class RunOptions:
    """How to run a grader: ``jobs`` batches in parallel of ``batch_size`` inputs each, ``timeout`` seconds
    per input (``None``: no limit), and whether ``cacheable`` kinds read and fill the verdict cache."""

    jobs: int = 1
    timeout: float | None = None
    batch_size: int = 64
    use_cache: bool = True

    def cache_dir(self, root: Path) -> Path | None:
        """The verdict-cache folder of the project at ``root`` (in the user's cache folder), or ``None`` when
        the cache is not used (``--no-cache``, ``GRADERCTL_CACHE_DIR=off``)."""
        if not self.use_cache:
            return None
        from graderctl.store.cache import default_cache_dir

        return default_cache_dir(root)


#: The defaults (one job, no time limit, batches of 64, the cache on).
DEFAULT_RUN = RunOptions()


def start_grader(grader: LoadedGrader, corpus: Corpus | None, cache_dir: Path | None) -> GraderKind:
    """Build a grader instance; anything but a graderctl error while building is a :class:`GraderRunError`."""
    try:
        return grader.build(corpus=corpus, cache_dir=cache_dir)
    except GraderctlError:
        raise
    except Exception as exc:
        raise GraderRunError(f"{grader.ref} could not start: {type(exc).__name__}: {exc}") from exc


def verdict_cache(grader: LoadedGrader, cache_dir: Path | None) -> VerdictStore | None:
    """The grader's verdict cache in ``cache_dir``; ``None`` without a folder or when its kind is not
    ``cacheable``."""
    if cache_dir is None or not grader.kind.cacheable:
        return None
    from graderctl.store.cache import VerdictCache

    return VerdictCache(cache_dir, grader.fingerprint)


def run_inputs(
    instance: GraderKind,
    inputs: Sequence[SampleInput],
    options: RunOptions,
    *,
    progress: ProgressCallback | None = None,
    cache: VerdictStore | None = None,
) -> list[Verdict]:
    """:func:`graderctl.runner.run_grader` with the jobs, batch size and timeout of ``options``."""
    return run_grader(
        instance,
        inputs,
        jobs=options.jobs,
        batch_size=options.batch_size,
        timeout=options.timeout,
        progress=progress,
        cache=cache,
    )
