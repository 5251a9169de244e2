"""Write examples/inspect/energy-research.eval: a real Inspect AI log, made with inspect_ai itself.

    .venv/bin/python examples/inspect/_build/build.py

It runs the tests' eval (tests/support/inspect_eval.py: one task of four research questions, four epochs,
Inspect's ``mockllm/model`` provider, a page-fetching and a search tool, the ``includes()`` scorer with the
``pass_at(k)`` / ``pass_k(k)`` epoch reducers) in a temporary folder outside the repository (so the log
records no local path or git revision), and copies its ``.eval`` log here. Needs ``graderctl[inspect]``.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from tests.support.inspect_eval import make_logs  # noqa: E402


def main() -> None:
    target = HERE.parent / "energy-research.eval"
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        logs = make_logs(Path(tmp) / "logs")
        shutil.copyfile(logs["eval"], target)
    print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
