from __future__ import annotations

import tomllib
from importlib.resources import files

import pytest

from graderctl.identity import (
    FamilyMap,
    FamilyMapError,
    normalize_model_id,
    self_grading,
    split_identity,
)


@pytest.fixture(scope="module")
def shipped() -> FamilyMap:
    text = files("graderctl.data").joinpath("model_families.toml").read_text(encoding="utf-8")
    return FamilyMap.from_tables(tomllib.loads(text), source="graderctl/data/model_families.toml")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("gpt-4o", "gpt-4o"),
        ("GPT-4o", "gpt-4o"),
        ("openai/gpt-4o", "gpt-4o"),
        ("azure/openai/gpt-4o", "gpt-4o"),
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("openai/gpt-4o-2024-08-06", "gpt-4o"),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("gpt-4-0613", "gpt-4"),
        ("gpt-4-0125-preview", "gpt-4"),
        ("gpt-4-turbo-2024-04-09", "gpt-4-turbo"),
        ("o3-mini-2025-01-31", "o3-mini"),
        ("claude-3-5-sonnet-20241022", "claude-3-5-sonnet"),
        ("claude-3-5-sonnet-latest", "claude-3-5-sonnet"),
        ("anthropic/claude-3-5-sonnet-20240620", "claude-3-5-sonnet"),
        ("bedrock/anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"),
        ("us.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude-3-7-sonnet"),
        ("claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet-v2"),
        ("gemini-1.5-pro-002", "gemini-1.5-pro"),
        ("models/gemini-2.0-flash-exp", "gemini-2.0-flash"),
        ("gemini-2.5-pro-preview-05-06", "gemini-2.5-pro"),
        ("mistral-large-2411", "mistral-large"),
        ("openrouter/meta-llama/llama-3.1-70b-instruct:free", "llama-3.1-70b-instruct"),
        ("llama3.1:8b", "llama3.1"),
        ("ft:gpt-4o-mini-2024-07-18:acme::abc123", "gpt-4o-mini"),
        ("  Claude 3 Opus  ", "claude-3-opus"),
        ("deepseek-v3", "deepseek-v3"),
        ("qwen2.5-72b-instruct", "qwen2.5-72b-instruct"),
    ],
)
def test_normalize_model_id(raw: str, expected: str) -> None:
    assert normalize_model_id(raw) == expected


def test_normalize_never_empties_a_name() -> None:
    assert normalize_model_id("20241022") == "20241022"
    assert normalize_model_id("") == ""


@pytest.mark.parametrize(
    ("judge", "generator", "relation"),
    [
        ("openai/gpt-4o", "gpt-4o-2024-08-06", "same_model"),
        ("gpt-4o", "chatgpt-4o-latest", "same_model"),
        ("gpt-4o", "gpt-4o-mini", "same_family"),
        ("claude-3-5-sonnet-20241022", "anthropic/claude-3.5-sonnet", "same_model"),
        ("claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet-latest", "same_model"),
        ("claude-3-5-haiku", "claude-3-5-sonnet", "same_family"),
        ("claude-sonnet-4-20250514", "claude-opus-4-20250514", "same_family"),
        ("claude-4-sonnet", "claude-sonnet-4-0", "same_model"),
        ("gemini-2.0-flash-001", "gemini-2.5-pro", "same_family"),
        ("llama3.1:70b", "meta-llama/Meta-Llama-3.1-70B-Instruct", "same_family"),
        ("o1-2024-12-17", "o3-mini", "same_family"),
        ("mistral-large-latest", "mixtral-8x7b-instruct", "same_family"),
        ("azure/gpt-35-turbo", "gpt-3.5-turbo-0125", "same_model"),
    ],
)
def test_self_grading_detected(shipped: FamilyMap, judge: str, generator: str, relation: str) -> None:
    jm, jp = split_identity(judge)
    gm, gp = split_identity(generator)
    match = self_grading(shipped.identify(jm, jp), shipped.identify(gm, gp))
    assert match is not None, (shipped.identify(jm, jp), shipped.identify(gm, gp))
    assert match.relation == relation
    assert "generator" in match.describe()


@pytest.mark.parametrize(
    ("judge", "generator"),
    [
        ("gpt-4o", "gpt-4.1"),
        ("gpt-4o", "gpt-4"),
        ("gpt-4o", "claude-3-5-sonnet-20241022"),
        ("claude-3-5-sonnet", "claude-3-7-sonnet"),
        ("gemini-1.5-pro", "gemini-2.0-flash"),
        ("llama-3.1-70b", "llama-4-scout"),
        ("o1", "gpt-4o"),
        ("my-private-model", "another-private-model"),
    ],
)
def test_different_families_are_not_self_grading(shipped: FamilyMap, judge: str, generator: str) -> None:
    assert self_grading(shipped.identify(judge), shipped.identify(generator)) is None


def test_unknown_models_compare_by_canonical_id(shipped: FamilyMap) -> None:
    a = shipped.identify("acme/house-model-2024-01-02")
    b = shipped.identify("house-model-latest")
    assert a.family is None
    match = self_grading(a, b)
    assert match is not None and match.relation == "same_model"


def test_unknown_identity_never_matches(shipped: FamilyMap) -> None:
    assert self_grading(shipped.identify("gpt-4o"), None) is None
    assert self_grading(None, shipped.identify("gpt-4o")) is None


def test_user_map_extends_and_overrides(shipped: FamilyMap) -> None:
    user = FamilyMap.from_tables(
        {
            "schema_version": 1,
            # an Azure deployment name that hides the model
            "aliases": {"prod-judge-east": "gpt-4o-2024-08-06"},
            # users may merge generations into one family; their patterns are tried first
            "families": {"claude": ["claude-*"]},
        },
        source="model_families.toml",
        priority=1,
    )
    merged = shipped.extended(user)
    assert merged.identify("azure/prod-judge-east").canonical == "gpt-4o"
    assert self_grading(merged.identify("prod-judge-east"), merged.identify("gpt-4o-mini")) is not None
    assert merged.identify("claude-3-5-sonnet").family == "claude"
    assert self_grading(merged.identify("claude-3-5-sonnet"), merged.identify("claude-3-7-sonnet"))
    # the shipped map is unchanged
    assert shipped.identify("claude-3-5-sonnet").family == "claude-3_5"
    assert merged.sources == ("graderctl/data/model_families.toml", "model_families.toml")


def test_most_specific_pattern_wins() -> None:
    fmap = FamilyMap.from_tables({"families": {"broad": ["gpt-*"], "narrow": ["gpt-4o*"]}}, source="t")
    assert fmap.identify("gpt-4o-mini").family == "narrow"
    assert fmap.identify("gpt-3.5-turbo").family == "broad"


def test_alias_cycles_terminate() -> None:
    fmap = FamilyMap.from_tables({"aliases": {"a-model": "b-model", "b-model": "a-model"}}, source="t")
    assert fmap.canonical("a-model") in {"a-model", "b-model"}


def test_malformed_map_lists_every_problem() -> None:
    with pytest.raises(FamilyMapError) as info:
        FamilyMap.from_tables(
            {"schema_version": 2, "aliases": {"x": 3}, "families": {"f": [1]}, "extra": {}}, source="t"
        )
    pointers = [p for p, _ in info.value.problems]
    assert pointers == ["/schema_version", "/extra", "/aliases/x", "/families/f"]


def test_shipped_map_is_well_formed(shipped: FamilyMap) -> None:
    assert len(shipped.families()) >= 20
    # every alias target lands on a known family or is deliberately family-less
    for target in set(shipped.aliases.values()):
        assert shipped.family_of_canonical(target) is not None, target


def test_split_identity() -> None:
    assert split_identity("openai/gpt-4o") == ("gpt-4o", "openai")
    assert split_identity("gpt-4o") == ("gpt-4o", None)
    assert split_identity("openrouter/openai/gpt-4o") == ("gpt-4o", "openrouter/openai")


def test_model_ref_serialises(shipped: FamilyMap) -> None:
    ref = shipped.identify("gpt-4o-2024-08-06", "openai")
    assert ref.to_dict() == {
        "model": "gpt-4o-2024-08-06",
        "provider": "openai",
        "canonical": "gpt-4o",
        "family": "gpt-4o",
    }
    assert "openai/gpt-4o-2024-08-06" in ref.describe()


# --- spellings that must not slip past the guard (issue 11, item 6) -------------------------------------

EVASIVE_SPELLINGS = [
    "openai:gpt-4o",  # provider with a colon
    "openai::gpt-4o",
    "azure:gpt-4o",
    "gpt\u20104o",  # U+2010 HYPHEN
    "gpt\u20114o",  # U+2011 NON-BREAKING HYPHEN
    "gpt\u20134o",  # EN DASH
    "gpt\u22124o",  # MINUS SIGN
    "gpt\ufe634o",  # SMALL HYPHEN-MINUS
    "\uff47\uff50\uff54\uff0d\uff14\uff4f",  # full-width letters
    "gpt_4o",
    "GPT_4O_2024_08_06",
    "gpt\u200b-4o",  # zero-width space
    "g\u200dpt-4o\ufeff",  # zero-width joiner, BOM
    "gpt-4o\u00ad",  # soft hyphen
    "\u202egpt-4o",  # right-to-left override
    "gpt-4\u043e",  # Cyrillic o
    "gpt-4\u00f6",  # o with diaeresis
    "gpt 4o",
    "azure/gpt-4o",
    "bedrock/openai.gpt-4o",
    "vertex_ai/gpt-4o",
    "openrouter\\openai\\gpt-4o",
    "OpenAI: gpt-4o",
    "openai / gpt-4o",
    "gpt\u30fc4o",  # KATAKANA-HIRAGANA PROLONGED SOUND MARK
    "gpt\uff704o",  # its half-width form
    "gpt\u25004o",  # BOX DRAWINGS LIGHT HORIZONTAL
    "gpt--4o",  # a run of hyphens
    "gpt_-_4o",
    "gpt-4o@2024",  # a version after '@'
    "gpt-4o@latest",
]


@pytest.mark.parametrize("generator", EVASIVE_SPELLINGS, ids=ascii)
def test_evasive_spellings_are_the_judge(shipped: FamilyMap, generator: str) -> None:
    assert normalize_model_id(generator) == "gpt-4o", generator
    judge = shipped.identify("gpt-4o-2024-08-06", "openai")
    gm, gp = split_identity(generator)
    match = self_grading(judge, shipped.identify(gm, gp))
    assert match is not None and match.relation == "same_model"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("mistral:latest", "mistral"),  # a gateway tag after a provider-like name is still a tag
        ("qwen:7b", "qwen"),
        ("llama3.1:8b", "llama3.1"),
        ("claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"),
        ("openai:gpt-4o:free", "gpt-4o"),
    ],
)
def test_colon_tags_and_provider_prefixes(raw: str, expected: str) -> None:
    assert normalize_model_id(raw) == expected


def test_full_width_and_dashed_judge_names_match_their_family(shipped: FamilyMap) -> None:
    # the judge's own name may be the odd one; family patterns see the cleaned name too
    assert shipped.identify("\uff47\uff50\uff54\u2010\uff14\uff4f\u2010mini").family == "gpt-4o"
    assert shipped.identify("claude_3_5_sonnet").family == "claude-3_5"


@pytest.mark.parametrize("generator", ["azure-gpt-4o", "openai-gpt-4o-2024-08-06", "OpenAI_GPT_4o"])
def test_a_provider_glued_on_with_a_hyphen_is_the_model(shipped: FamilyMap, generator: str) -> None:
    judge = shipped.identify("gpt-4o-2024-08-06", "openai")
    match = self_grading(judge, shipped.identify(generator))
    assert match is not None and match.relation == "same_model"
    # but only when what follows is a known model: an unknown name keeps its spelling
    assert shipped.identify("openai-house-model").canonical == "openai-house-model"
