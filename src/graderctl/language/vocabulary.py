"""The packaged word lists of the language layer (``graderctl/language/data/*.txt``), read once through
:mod:`importlib.resources` (the only I/O of the layer; the files ship in the wheel with the package).

File format, one vocabulary per file, UTF-8:

- a line starting with ``#`` is a comment; blank lines are skipped;
- :func:`words` / :func:`word_list`: every whitespace-separated word of the file (a set / in order);
- :func:`groups`: one group of words per line, in order (``marry wed married marriage``);
- :func:`table`: ``key value`` per line, in order (the value is the rest of the line); a key with spaces is
  written with ``_`` for each space (``more_than 1``) -- :func:`table` gives it back with spaces.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

__all__ = ["groups", "table", "word_list", "words"]


@cache
def _lines(name: str) -> tuple[str, ...]:
    text = files("graderctl.language").joinpath("data", f"{name}.txt").read_text(encoding="utf-8")
    return tuple(s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#"))


def word_list(name: str) -> tuple[str, ...]:
    """Every word of vocabulary ``name``, in order."""
    return tuple(w for line in _lines(name) for w in line.split())


def words(name: str) -> frozenset[str]:
    """Every word of vocabulary ``name``."""
    return frozenset(word_list(name))


def groups(name: str) -> tuple[tuple[str, ...], ...]:
    """The groups (lines) of vocabulary ``name``, in order."""
    return tuple(tuple(line.split()) for line in _lines(name))


def table(name: str) -> dict[str, str]:
    """``key -> value`` of vocabulary ``name``, in order (``_`` in a key reads as a space)."""
    out: dict[str, str] = {}
    for line in _lines(name):
        key, value = line.split(maxsplit=1)
        out[key.replace("_", " ")] = value
    return out
