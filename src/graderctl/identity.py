"""Model identities: which model wrote a text, which judges it, and whether they are the same or related.

Pure functions and values, no I/O. The family map comes from data (``graderctl/data/model_families.toml``,
extended by a project's own ``model_families.toml``); the services read the files and hand the parsed tables
to :meth:`FamilyMap.from_tables`.

Two names are compared after :func:`normalize_model_id`, which removes what varies between spellings of one
model but not its identity: how the characters are written (Unicode NFKC, so full-width letters are plain
ones; every look-alike hyphen, dash or minus is ``-``; ``_`` and spaces are ``-``; zero-width and other
invisible characters are removed; Cyrillic and Greek letters that look like Latin ones are the Latin ones),
the provider or gateway prefix (``openai/``, ``openai:``, ``azure/``, ``bedrock/``, ``us.anthropic.``),
case, dated snapshots (``-2024-08-06``, ``-20241022``, ``@20241022``, ``-0613``, ``-001``), ``-latest``,
``-preview``, ``-exp`` and gateway tags (``:free``, ``:8b``, ``-v2:0`` on Bedrock ids). An alias table then
maps a normalised name to its canonical id (``chatgpt-4o`` -> ``gpt-4o``), and family patterns group canonical
ids into families (``gpt-4o-mini`` belongs to ``gpt-4o``).
"""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

_VENDOR_DOT_PREFIX = re.compile(
    r"^(?:(?:us|eu|apac|global)\.)?"
    r"(?:anthropic|meta|amazon|cohere|ai21|mistral|mistralai|deepseek|openai|google|qwen|writer)\."
)
# Suffixes stripped repeatedly, in this order, until none applies.
_SUFFIXES: tuple[re.Pattern[str], ...] = (
    re.compile(r"[-_@]\d{8}-v\d+$"),  # Bedrock: claude-3-5-sonnet-20241022-v2 (after ':0' is gone)
    re.compile(r"[-_@]\d{4}-\d{2}-\d{2}$"),  # gpt-4o-2024-08-06
    re.compile(r"[-_@]\d{8}$"),  # claude-3-5-sonnet-20241022, ...@20241022
    re.compile(r"-(?:latest|preview|exp|experimental)$"),
    re.compile(r"-\d{2}-\d{2}$"),  # gemini-2.5-pro-preview-05-06
    re.compile(r"-\d{4}$"),  # gpt-4-0613, mistral-large-2411
    re.compile(r"-\d{3}$"),  # gemini-1.5-pro-002
)
_SPACES = re.compile(r"\s+")
#: Hyphens, dashes and minus signs that look like ``-`` (NFKC leaves most of them alone), and ``_``.
_DASHES = re.compile(
    r"[\u002d\u005f\u00ad\u058a\u05be\u1400\u1806\u2010-\u2015\u2043\u2212\u2e17\u2e1a"
    r"\u2e3a\u2e3b\u2e40\u301c\u3030\u30a0\u30fc\uff70\ufe31\ufe32\ufe58\ufe63\uff0d\u02d7\u2796"
    r"\u2500\u2501\u23af]"
)
_DASH_RUNS = re.compile(r"-{2,}")
#: Cyrillic and Greek letters that look like Latin ones (lower case; the text is case-folded first).
# fmt: off
_CONFUSABLES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
        "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "һ": "h", "ԁ": "d", "ԛ": "q",
        "ԝ": "w", "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
        "υ": "u", "χ": "x", "ӏ": "l",
    }
)
# fmt: on
#: Provider and gateway names that may prefix a model id with ``:`` (``openai:gpt-4o``); ``/``-prefixes
#: are removed whatever they say.
# fmt: off
_PROVIDERS = frozenset({
    "openai", "azure", "azure-openai", "azureopenai", "azure-ai", "anthropic", "bedrock", "aws", "amazon",
    "vertex", "vertex-ai", "vertexai", "google", "google-ai", "googleai", "gemini", "gcp", "mistral",
    "mistralai", "together", "together-ai", "togetherai", "groq", "fireworks", "fireworks-ai", "openrouter",
    "ollama", "deepseek", "cohere", "huggingface", "hf", "replicate", "perplexity", "xai", "meta",
    "meta-llama", "litellm", "nvidia", "nim", "cerebras", "sambanova", "deepinfra", "anyscale", "lmstudio",
    "vllm", "ai21", "qwen", "dashscope", "moonshot", "watsonx", "databricks", "sagemaker", "cloudflare",
    "github", "local", "custom", "provider", "model", "models"
})
# fmt: on
#: What follows a colon in a gateway tag rather than a model id (``mistral:latest``, ``qwen:7b``).
_TAG = re.compile(r"^(?:latest|free|beta|nitro|floor|online|extended|thinking|\d[\w.-]*)(?::.*)?$")
#: Unicode categories removed from a model name: format (zero-width, direction marks, soft hyphen),
#: control, and combining marks (accents, once NFKD has split them off).
_INVISIBLE = frozenset({"Cf", "Cc", "Mn", "Me"})
_SEPARATORS = re.compile(r"[/\\|]")


def clean_model_text(model: str) -> str:
    """The characters of a model name as plain lower-case ASCII-like text: NFKC, case-folded, look-alike
    letters and dashes replaced, ``_`` and whitespace as ``-`` (a run of them as one), invisible characters
    (zero-width spaces and joiners, soft hyphens, direction marks, other format and control characters)
    removed."""
    # NFKD splits accents off their letters (and full-width forms into plain ones); the marks and every
    # invisible character go, then NFKC puts back what remains.
    text = unicodedata.normalize("NFKD", model)
    text = "".join(ch for ch in text if ch in " \t" or unicodedata.category(ch) not in _INVISIBLE)
    text = unicodedata.normalize("NFKC", text).casefold().translate(_CONFUSABLES)
    text = _DASHES.sub("-", text)
    return _DASH_RUNS.sub("-", _SPACES.sub("-", text.strip()))


def _strip_provider(text: str) -> str:
    # Provider and gateway prefixes: openai/gpt-4o, openrouter/anthropic/claude-3.5-sonnet, models/gemini-1.5.
    text = _SEPARATORS.split(text)[-1]
    # openai:gpt-4o, azure::gpt-4o, bedrock:anthropic.claude-... (a known provider before a colon).
    while ":" in text:
        head, _, rest = text.partition(":")
        if head in _PROVIDERS and rest.strip(":") and not _TAG.match(rest.lstrip(":")):
            text = rest.lstrip(":")
        else:
            break
    return text


def normalize_model_id(model: str) -> str:
    """The spelling-independent form of a model name (see the module docstring). Never empty for a non-empty
    name: when stripping would leave nothing, the cleaned name is kept."""
    cleaned = clean_model_text(model)
    if not cleaned:
        return cleaned
    text = _strip_provider(cleaned)
    # Fine-tuned OpenAI models name their base: ft:gpt-4o-mini-2024-07-18:org::id.
    if text.startswith("ft:"):
        text = text[3:]
    # Gateway tags (':free', ':beta', ollama ':8b', Bedrock ':0') and versions after '@' (Vertex AI's
    # claude-3-5-sonnet@20240620, gpt-4o@2024).
    text = text.split(":", 1)[0]
    text = text.split("@", 1)[0] or text
    text = _VENDOR_DOT_PREFIX.sub("", text)
    text = text.strip("-.")
    changed = True
    while changed and text:
        changed = False
        for pattern in _SUFFIXES:
            stripped = pattern.sub("", text)
            if stripped and stripped != text:
                text = stripped
                changed = True
                break
    return text or cleaned


@dataclass(frozen=True, slots=True)
class ModelRef:
    """One model as named in a file, with what it resolves to."""

    raw: str
    provider: str | None
    canonical: str
    family: str | None

    def describe(self) -> str:
        shown = f"{self.provider}/{self.raw}" if self.provider and "/" not in self.raw else self.raw
        fam = f", family {self.family}" if self.family else ", no known family"
        return f"{shown} (= {self.canonical}{fam})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.raw,
            "provider": self.provider,
            "canonical": self.canonical,
            "family": self.family,
        }


@dataclass(frozen=True, slots=True)
class SelfGradingMatch:
    """A judge that would grade text written by itself or by a model of its family."""

    judge: ModelRef
    generator: ModelRef
    relation: Literal["same_model", "same_family"]

    def describe(self) -> str:
        if self.relation == "same_model":
            return (
                f"judge {self.judge.describe()} is the generator {self.generator.describe()}: "
                f"both are {self.judge.canonical}"
            )
        return (
            f"judge {self.judge.describe()} and generator {self.generator.describe()} are of the same "
            f"family {self.judge.family}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "relation": self.relation,
            "judge": self.judge.to_dict(),
            "generator": self.generator.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class _FamilyPattern:
    family: str
    pattern: str
    #: 0 for shipped data, 1 for the user's file (checked first).
    priority: int

    @property
    def specificity(self) -> int:
        return len(self.pattern.replace("*", "").replace("?", ""))


class FamilyMapError(ValueError):
    """A family map table is malformed; ``problems`` holds ``(pointer, message)`` pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{p}: {m}" for p, m in problems))
        self.problems = problems


@dataclass(frozen=True)
class FamilyMap:
    """Aliases (normalised name -> canonical id) and family patterns (globs over canonical ids)."""

    aliases: Mapping[str, str] = field(default_factory=dict)
    patterns: tuple[_FamilyPattern, ...] = ()
    sources: tuple[str, ...] = ()

    @classmethod
    def from_tables(cls, data: Mapping[str, Any], *, source: str, priority: int = 0) -> FamilyMap:
        """Build a map from a parsed ``model_families.toml``::

            schema_version = 1
            [aliases]
            "chatgpt-4o" = "gpt-4o"
            [families]
            gpt-4o = ["gpt-4o", "gpt-4o-*"]

        Raises :class:`FamilyMapError` listing every malformed entry."""
        problems: list[tuple[str, str]] = []
        version = data.get("schema_version", 1)
        if version != 1:
            problems.append(("/schema_version", f"expected 1, got {version!r}"))
        unknown = sorted(set(data) - {"schema_version", "aliases", "families", "description"})
        for key in unknown:
            problems.append((f"/{key}", "unknown table; expected [aliases] and [families]"))
        aliases: dict[str, str] = {}
        raw_aliases = data.get("aliases", {})
        if not isinstance(raw_aliases, Mapping):
            problems.append(("/aliases", "expected a table of name = canonical id"))
            raw_aliases = {}
        for name, target in raw_aliases.items():
            if not isinstance(target, str) or not target.strip():
                problems.append((f"/aliases/{name}", f"expected a model id string, got {target!r}"))
                continue
            aliases[normalize_model_id(str(name))] = normalize_model_id(target)
            aliases.setdefault(_lower(str(name)), normalize_model_id(target))
        patterns: list[_FamilyPattern] = []
        raw_families = data.get("families", {})
        if not isinstance(raw_families, Mapping):
            problems.append(("/families", "expected a table of family = [patterns]"))
            raw_families = {}
        for family, globs in raw_families.items():
            if isinstance(globs, str):
                globs = [globs]
            if not isinstance(globs, list) or not all(isinstance(g, str) and g.strip() for g in globs):
                problems.append((f"/families/{family}", f"expected a list of patterns, got {globs!r}"))
                continue
            for glob in globs:
                patterns.append(_FamilyPattern(str(family), clean_model_text(glob), priority))
        if problems:
            raise FamilyMapError(problems)
        return cls(aliases=aliases, patterns=tuple(patterns), sources=(source,))

    def extended(self, other: FamilyMap) -> FamilyMap:
        """This map extended by ``other``: its aliases win, and its family patterns are tried first."""
        aliases = dict(self.aliases)
        aliases.update(other.aliases)
        return FamilyMap(
            aliases=aliases,
            patterns=self.patterns + other.patterns,
            sources=self.sources + other.sources,
        )

    def canonical(self, model: str) -> str:
        """The canonical id of a model name: an alias of the raw (lower-cased, unprefixed) spelling first,
        then of the normalised one, else the normalised name itself."""
        raw = _lower(model)
        if raw in self.aliases:
            return self.aliases[raw]
        norm = normalize_model_id(model)
        seen: set[str] = set()
        # Aliases may chain (a -> b -> c); stop on a cycle.
        while norm in self.aliases and norm not in seen:
            seen.add(norm)
            norm = self.aliases[norm]
        return norm

    def family_of_canonical(self, canonical: str) -> str | None:
        best: _FamilyPattern | None = None
        for p in self.patterns:
            if not fnmatch.fnmatchcase(canonical, p.pattern):
                continue
            if best is None or (p.priority, p.specificity) > (best.priority, best.specificity):
                best = p
        return best.family if best else None

    def identify(self, model: str, provider: str | None = None) -> ModelRef:
        canonical = self.canonical(model)
        family = self.family_of_canonical(canonical)
        if family is None:
            # A provider glued on with a hyphen (azure-gpt-4o, openai-gpt-4o-mini): when what follows is a
            # known model, that is the model.
            head, _, rest = canonical.partition("-")
            if rest and head in _PROVIDERS:
                inner = self.canonical(rest)
                inner_family = self.family_of_canonical(inner)
                if inner_family is not None:
                    canonical, family = inner, inner_family
        return ModelRef(raw=model, provider=provider, canonical=canonical, family=family)

    def families(self) -> list[str]:
        return sorted({p.family for p in self.patterns})


def _lower(model: str) -> str:
    return _strip_provider(clean_model_text(model))


def split_identity(identity: str) -> tuple[str, str | None]:
    """``"openai/gpt-4o"`` -> ``("gpt-4o", "openai")``; a bare model name has no provider."""
    text = identity.strip()
    if "/" in text:
        provider, _, model = text.rpartition("/")
        return model, provider or None
    return text, None


def self_grading(judge: ModelRef | None, generator: ModelRef | None) -> SelfGradingMatch | None:
    """The match when ``judge`` would grade its own text (same canonical id) or its family's, else ``None``.
    Unknown identities (``None``) never match: the caller decides what an unknown generator means."""
    if judge is None or generator is None:
        return None
    if judge.canonical == generator.canonical:
        return SelfGradingMatch(judge=judge, generator=generator, relation="same_model")
    if judge.family is not None and judge.family == generator.family:
        return SelfGradingMatch(judge=judge, generator=generator, relation="same_family")
    return None
