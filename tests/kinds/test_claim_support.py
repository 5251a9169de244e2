"""The ``claim_support`` kind: each signal on hand-written examples, the fitted model in the shipped
definition, reasons, errors, determinism, and a floor on the WiCE development data."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from pydantic import ValidationError
from tests.conftest import REPO, shared_data

from graderctl.kinds import _support_features as sf
from graderctl.kinds.claim_support import (
    DEFAULT_CENTER,
    DEFAULT_INTERCEPT,
    DEFAULT_PENALTIES,
    DEFAULT_SCALE,
    DEFAULT_THRESHOLD,
    DEFAULT_WEIGHTS,
    ClaimSupportGrader,
    ClaimSupportParams,
    support_score,
)
from graderctl.models.calset import ClaimSupportInput, CorpusDocument
from graderctl.plugin import Corpus, GradingContext, Verdict, get_kind

REPORT = (
    "The Harbour Museum opened in Lisbon in 1998. "
    "Its collection holds 3,500,000 objects from across Asia and Africa. "
    "Annual attendance rose to 412,000 visitors in 2019, the highest figure in its history. "
    "Director Maria Lopes did not expand the main building, citing the cost of the work. "
    "The museum is funded by the city council and by private donors."
)
OTHER = (
    "The North Sea ferry service between Esbjerg and Harwich was closed in 2014. "
    "Operators blamed falling freight volumes and higher fuel prices."
)


def grader(corpus: Corpus | None = None, **params: object) -> ClaimSupportGrader:
    p = ClaimSupportParams.model_validate(_shipped_params() | params)
    return ClaimSupportGrader(p, GradingContext(corpus=corpus))


def _shipped_params() -> dict[str, object]:
    data = tomllib.loads((REPO / "graders" / "claim-support" / "v1.toml").read_text(encoding="utf-8"))
    params = data["params"]
    assert isinstance(params, dict)
    return params


def grade(claim: str, text: str = REPORT, **params: object) -> Verdict:
    inp = ClaimSupportInput.model_validate({"claim": claim, "evidence": [{"text": text}]})
    (verdict,) = grader(**params).grade_batch([inp])
    return verdict


# --- building blocks ------------------------------------------------------------------------------------


def test_stems_are_snowball_english() -> None:
    cases = {"running": "run", "elected": "elect", "election": "elect", "companies": "compani"}
    assert {w: sf.stem(w) for w in cases} == cases
    # irregular forms, synonyms and demonyms share a key
    assert sf.word_key("won") == sf.word_key("win")
    assert sf.word_key("rose") == sf.word_key("increased")
    assert sf.word_key("German") == sf.word_key("Germany")


def _numbers(text: str) -> list[sf.Number]:
    return sf.analyse_claim(text).numbers


def test_numbers_are_compared_by_value() -> None:
    def values(text: str) -> list[float]:
        return [n.value for n in _numbers(text)]

    assert values("3.5 million people") == values("3,500,000 people") == [3_500_000.0]
    assert values("saved 1.9m shillings") == [1_900_000.0]
    assert values("twenty-one awards") == [21.0]
    assert values("the 2018-19 season")[-1] == 2019.0
    assert values("$1.2bn") == values("1.2 billion dollars") == [1.2e9]
    rounded = _numbers("about 3.5 million")[0]
    assert sf.number_matches(rounded, _numbers("3,482,000"))
    assert not sf.number_matches(rounded, _numbers("3,300,000"))
    assert sf.number_matches(_numbers("about 40%")[0], _numbers("39.6%"))
    assert sf.number_matches(_numbers("40%")[0], _numbers("39.6%"))
    assert not sf.number_matches(_numbers("40%")[0], _numbers("38%"))
    assert sf.number_matches(_numbers("40%")[0], _numbers("40 percent"))


def test_units_and_bounds_are_read() -> None:
    assert sf.number_matches(_numbers("1.2 GW of wind")[0], _numbers("1,200 MW of wind"))
    assert sf.number_matches(_numbers("a cut of 25 bps")[0], _numbers("0.25 percentage points"))
    assert sf.number_matches(_numbers("more than 2,000 doses")[0], _numbers("2,314 doses"))
    assert not sf.number_matches(_numbers("more than 2,000 doses")[0], _numbers("1,870 doses"))
    year, percent = _numbers("in 2019 about 12%")
    assert (year.kind, percent.kind) == ("year", "percent")
    assert not sf.number_matches(year, _numbers("2,019 visitors"))
    assert _numbers("$12 million")[0].kind == "currency:USD"


def test_sentences_and_windows_locate_the_passage() -> None:
    index = sf.index_text(REPORT)
    assert len(index) == 5
    feats = sf.extract(sf.analyse_claim("Attendance rose to 412,000 visitors in 2019."), [index])
    assert feats.passage is not None
    assert (feats.passage.start, feats.passage.end) == (2, 2)
    assert feats.values["recall_window"] == pytest.approx(1.0)
    assert feats.values["number_missing_evidence"] == 0.0


def test_feature_values_are_bounded() -> None:
    claims = ["The museum opened in 1998.", "Zebras migrate across the Serengeti.", "It is.", "1998"]
    bounded = {n for n in sf.FEATURE_NAMES if n not in ("claim_length", "missing_count", "evidence_length")}
    for claim in claims:
        values = sf.extract(sf.analyse_claim(claim), [sf.index_text(REPORT)]).values
        assert set(values) == {*sf.FEATURE_NAMES, "veto"}  # veto: a flag (0/1), not a fitted feature
        assert values["veto"] in (0.0, 1.0)
        for name in bounded:
            assert 0.0 <= values[name] <= 1.0, (claim, name, values[name])


# --- verdicts on hand-written cases -----------------------------------------------------------------------


def test_paraphrase_is_accepted() -> None:
    v = grade(
        "Maria Lopes, the museum's director, chose not to expand its main building because of the cost."
    )
    assert v.accepted is True, v.reason


def test_number_format_equivalence_is_accepted() -> None:
    v = grade("The Harbour Museum's collection holds 3.5 million objects from Asia and Africa.")
    assert v.accepted is True, v.reason
    assert "3.5 million" not in v.reason


def test_changed_number_is_rejected_and_named() -> None:
    v = grade("Annual attendance at the Harbour Museum rose to 512,000 visitors in 2019.")
    assert v.accepted is False, v.reason
    assert "512,000" in v.reason
    assert v.details is not None and v.details["conflicting_numbers"] == [["512,000", "412,000"]]


def test_changed_year_is_rejected() -> None:
    v = grade("The Harbour Museum opened in Lisbon in 2003.")
    assert v.accepted is False, v.reason
    assert "2003" in v.reason


def test_negation_flip_is_rejected() -> None:
    v = grade("Director Maria Lopes expanded the main building of the museum.")
    assert v.accepted is False, v.reason
    assert "negation differs" in v.reason and "'not'" in v.reason
    w = grade("The Harbour Museum did not open in Lisbon in 1998.")
    assert w.accepted is False, w.reason
    assert "the claim says 'not'" in w.reason


def test_quantity_flip_is_a_veto_and_is_named() -> None:
    # an opposite direction word on the passage's predicate, with no word of the claim's direction nearby,
    # rejects whatever the fitted (modest) weight says
    v = grade("Annual attendance at the Harbour Museum fell to 412,000 visitors in 2019.")
    same = grade("Annual attendance at the Harbour Museum rose to 412,000 visitors in 2019.")
    assert v.accepted is False and same.accepted is True
    assert v.score is not None and same.score is not None and v.score < same.score - 0.2
    assert "rejected outright: opposite wording: claim 'fell' vs passage 'rose'" in v.reason
    assert same.details is not None and same.details["quantity"] == [] and same.details["vetoes"] == []


# --- explicit contradictions decide alone (regressions from the contract tests' orchard document) ---------

ORCHARD = (
    "Researchers counted bee visits in nine upland apple orchards over two summers. "
    "Orchards bordered by wildflower strips received more visits than orchards without them. "
    "The study did not measure fruit yield."
)


@pytest.mark.parametrize(
    ("claim", "supported", "says"),
    [
        (
            "Orchards next to wildflower strips received fewer visits from bees than orchards without them.",
            "Orchards next to wildflower strips got more bee visits than orchards without them.",
            "opposite wording: claim 'fewer' vs passage 'more'",
        ),
        (
            "The study followed 14 lowland orchards over five summers.",
            "Researchers counted bee visits in nine upland orchards over two summers.",
            "contradicting number/date: claim says 'five', passage says 'two'",
        ),
        (
            "The study tracked honey production in lowland vineyards over ten winters.",
            "Researchers counted bee visits in upland apple orchards.",
            "6 of the claim's 7 content words are nowhere in the evidence",
        ),
        (
            "The study found that wildflower strips doubled the fruit yield.",
            "The study did not measure fruit yield.",
            "negated predicate: the passage says 'not' 'measure' about 'fruit', 'yield'",
        ),
    ],
)
def test_explicit_contradiction_is_a_veto(claim: str, supported: str, says: str) -> None:
    v = grade(claim, ORCHARD)
    assert v.accepted is False, v.reason
    assert v.score is not None and v.score < DEFAULT_THRESHOLD
    assert "rejected outright: " in v.reason and says in v.reason
    assert v.details is not None and v.details["vetoes"]
    ok = grade(supported, ORCHARD)
    assert ok.accepted is True, ok.reason
    assert ok.details is not None and ok.details["vetoes"] == []


def test_veto_caps_the_score_below_the_threshold() -> None:
    p = ClaimSupportParams(threshold=0.6)
    values = dict.fromkeys(sf.FEATURE_NAMES, 0.0) | {"recall_window_idf": 1.0, "char_similarity": 1.0}
    assert support_score(values, p) > 0.6
    assert support_score(values | {"veto": 1.0}, p) == pytest.approx(0.3)


def test_a_figure_the_claim_gives_elsewhere_is_no_rival() -> None:
    text = "A nightly incremental backup took 11 minutes instead of 2 hours and 40 minutes for a full backup."
    v = grade("An incremental backup took 11 minutes versus 160 minutes for a full backup.", text)
    assert v.details is not None and v.details["vetoes"] == [], v.reason


def test_opposite_word_in_a_neighbouring_sentence_is_no_veto() -> None:
    text = (
        "Infections with Klebsiella rose by 57% compared with the 2019 baseline. "
        "By contrast, infections with MRSA fell to 4.6 per 100 000, 13% below the baseline."
    )
    v = grade("Infections with MRSA fell to 4.6 per 100 000, 13% below the 2019 baseline.", text)
    assert v.details is not None and v.details["vetoes"] == [], v.reason


def test_different_entity_is_rejected() -> None:
    v = grade("Director Carlos Mendes did not expand the main building, citing the cost of the work.")
    assert v.accepted is False, v.reason
    assert "'Carlos Mendes'" in v.reason
    right = grade("Director Maria Lopes did not expand the main building, citing the cost of the work.")
    assert right.accepted is True, right.reason


def test_unrelated_evidence_is_rejected() -> None:
    v = grade("The Harbour Museum's collection holds 3,500,000 objects.", text=OTHER)
    assert v.accepted is False, v.reason


def test_missing_words_lower_the_score() -> None:
    good = grade("The museum is funded by the city council and by private donors.")
    bad = grade("The museum is funded by a national lottery and by ticket sales.")
    assert good.score is not None and bad.score is not None
    assert good.score > bad.score
    assert good.accepted is True, good.reason
    assert "'lottery'" in bad.reason and "'ticket'" in bad.reason


# --- the rule signals, each on both sides ---------------------------------------------------------------

TRAMS = (
    "The city's tram pilot ran for six months in 2023. "
    "It cut average journey times on three of the network's five lines, and ridership held stable. "
    "Officials plan to extend the timetable changes next year."
)
CYCLING = (
    "Commuting by bicycle in Ostrava rose by 12% in 2023. "
    "The same year, the city opened 40 km of new protected bike lanes. "
    "Researchers say the link between the two is still being studied."
)
CYCLING_CAUSE = (
    "Commuting by bicycle in Ostrava rose by 12% in 2023, largely because the city opened 40 km of new "
    "protected bike lanes."
)
FERRY = "The Esbjerg ferry no longer stops at Harwich. It failed to attract enough freight in 2014."


def test_different_entity_of_the_same_type_is_a_conflict() -> None:
    v = grade("The Harbour Museum opened in Porto in 1998.")
    assert v.accepted is False, v.reason
    assert "different name: claim 'Porto' vs passage 'Lisbon'" in v.reason
    assert v.details is not None and v.details["entity_conflicts"] == [["Porto", "Lisbon"]]
    right = grade("The Harbour Museum opened in Lisbon in 1998.")
    assert right.accepted is True, right.reason
    assert right.details is not None and right.details["entity_conflicts"] == []


def test_demonym_names_the_country() -> None:
    text = "The Harbour Museum opened in Lisbon, Portugal, in 1998."
    v = grade("The Harbour Museum is a Portuguese museum that opened in 1998.", text=text)
    assert v.details is not None and v.details["missing_entities"] == [], v.reason
    w = grade("The Harbour Museum is a Spanish museum that opened in 1998.", text=text)
    assert w.accepted is False, w.reason
    assert w.details is not None and w.details["entity_conflicts"][0][0] == "Spanish", w.reason
    assert w.details["entity_conflicts"][0][1] in ("Lisbon", "Portugal")


def test_universal_claim_against_a_limited_source_is_rejected() -> None:
    v = grade("The tram pilot cut average journey times on every line of the network.", text=TRAMS)
    assert v.accepted is False, v.reason
    assert "universal claim ('every')" in v.reason
    ok = grade("The tram pilot cut average journey times on three lines of the network.", text=TRAMS)
    assert ok.accepted is True, ok.reason
    assert ok.details is not None and ok.details["scope"] is None


def test_eliminated_against_reduced_is_overgeneralisation() -> None:
    text = "The new filters reduced particulate emissions at the plant by 60% in 2022."
    v = grade("The new filters eliminated particulate emissions at the plant in 2022.", text=text)
    assert v.accepted is False, v.reason
    assert v.details is not None and v.details["scope"] == ["eliminated", "reduced"]


def test_causal_claim_against_a_correlational_source_is_rejected() -> None:
    claim = "The new protected bike lanes caused the 12% rise in commuting by bicycle in Ostrava in 2023."
    v = grade(claim, text=CYCLING)
    assert v.accepted is False, v.reason
    assert "causal claim ('caused')" in v.reason
    assert v.details is not None and v.details["causal"][0] == "caused"
    ok = grade(claim, text=CYCLING_CAUSE)
    assert ok.accepted is True, ok.reason
    assert ok.details is not None and ok.details["causal"] is None


def test_negation_is_scoped_to_the_denied_word() -> None:
    v = grade("The Esbjerg ferry stops at Harwich.", text=FERRY)
    assert v.accepted is False, v.reason
    assert "negation differs" in v.reason and "'no longer'" in v.reason
    ok = grade("The Esbjerg ferry does not stop at Harwich any more.", text=FERRY)
    assert ok.accepted is True, ok.reason
    failed = grade("The Esbjerg ferry attracted enough freight in 2014.", text=FERRY)
    assert failed.accepted is False, failed.reason
    assert "'failed'" in failed.reason
    # a negation elsewhere in the passage, about another word, is no mismatch
    other = grade("Director Maria Lopes cited the cost of the work.")
    assert other.details is not None and other.details["negation"] is None, other.reason


def test_prefix_negation_counts_only_against_the_bare_word() -> None:
    text = "The cause of the outage is unknown, according to the operator."
    v = grade("The cause of the outage is known, according to the operator.", text=text)
    assert v.details is not None and v.details["negation"], v.reason
    ok = grade("The operator says the cause of the outage is unknown.", text=text)
    assert ok.details is not None and ok.details["negation"] is None, ok.reason


def test_changed_percentage_is_a_conflict_and_rounding_is_not() -> None:
    text = "In 2023 the recycling rate of the district reached 39.6%, up from 31.2% in 2019."
    ok = grade("The district's recycling rate reached about 40% in 2023.", text=text)
    assert ok.accepted is True, ok.reason
    bad = grade("The district's recycling rate reached 46% in 2023.", text=text)
    assert bad.accepted is False, bad.reason
    assert "claim says '46%', passage says '39.6%'" in bad.reason


def test_unit_conversion_is_accepted() -> None:
    text = "The offshore wind farm off Sylt has a capacity of 1,200 MW and began operating in 2021."
    v = grade("The offshore wind farm off Sylt has a capacity of 1.2 GW.", text=text)
    assert v.accepted is True, v.reason


def test_multi_sentence_support_is_accepted() -> None:
    v = grade("The Harbour Museum opened in Lisbon in 1998 and holds 3.5 million objects.")
    assert v.accepted is True, v.reason
    assert v.details is not None and v.details["passage"]["sentences"] == [1, 2]


# --- reasons, details, errors ---------------------------------------------------------------------------


def test_reason_quotes_the_passage_with_its_location() -> None:
    corpus = Corpus([CorpusDocument(id="museum-report", text=REPORT)])
    inp = ClaimSupportInput.model_validate(
        {
            "claim": "Annual attendance rose to 412,000 visitors in 2019.",
            "evidence": [{"source_id": "museum-report"}],
        }
    )
    (v,) = grader(corpus).grade_batch([inp])
    assert v.accepted is True, v.reason
    assert "document 'museum-report', sentence 3" in v.reason
    assert '"Annual attendance rose to 412,000 visitors in 2019' in v.reason
    assert v.details is not None
    assert v.details["passage"]["source_id"] == "museum-report"
    assert v.details["passage"]["sentences"] == [3, 3]
    assert set(v.details["features"]) == {*sf.FEATURE_NAMES, "veto"}


def test_reason_names_what_is_missing() -> None:
    v = grade("The Harbour Museum in Lisbon employs 85 curators.")
    assert v.accepted is False
    assert "'curators'" in v.reason and "'85'" in v.reason


def test_long_passages_are_trimmed_in_the_reason() -> None:
    long = " ".join(["The archive lists every shipment by date and port and cargo and owner"] * 40) + "."
    v = grade("The archive lists shipments by port.", text=long, passage_chars_shown=80)
    assert "[...]" in v.reason
    assert len(v.reason) < 500


def test_missing_source_id_is_an_error_not_a_reject() -> None:
    corpus = Corpus([CorpusDocument(id="museum-report", text=REPORT)])
    inputs = [
        ClaimSupportInput.model_validate(
            {"claim": "The museum opened in 1998.", "evidence": [{"source_id": "nope"}]}
        ),
        ClaimSupportInput.model_validate(
            {"claim": "The museum opened in 1998.", "evidence": [{"source_id": "museum-report"}]}
        ),
    ]
    missing, ok = grader(corpus).grade_batch(inputs)
    assert missing.is_error and missing.accepted is None
    assert missing.error is not None and "'nope' is not in the corpus" in missing.error
    assert ok.accepted is True


def test_no_corpus_and_empty_document_are_errors() -> None:
    inp = ClaimSupportInput.model_validate({"claim": "The museum opened.", "evidence": [{"source_id": "x"}]})
    (v,) = grader(None).grade_batch([inp])
    assert v.is_error and "no corpus" in (v.error or "")
    (w,) = grader(Corpus([CorpusDocument(id="x", text="  ")])).grade_batch([inp])
    assert w.is_error and "has no text" in (w.error or "")


def test_several_evidence_items_are_searched() -> None:
    inp = ClaimSupportInput.model_validate(
        {
            "claim": "The Esbjerg-Harwich ferry closed in 2014 because freight volumes fell.",
            "evidence": [{"text": REPORT}, {"text": OTHER}],
        }
    )
    (v,) = grader().grade_batch([inp])
    assert v.accepted is True, v.reason
    assert "evidence[1]" in v.reason


def test_grading_is_deterministic_and_scores_are_in_range() -> None:
    claims = [
        "The museum opened in 1998.",
        "The museum holds 2 million objects.",
        "Zebras migrate across the Serengeti.",
        "It is.",
        "Maria Lopes expanded the main building.",
    ]
    inputs = [ClaimSupportInput.model_validate({"claim": c, "evidence": [{"text": REPORT}]}) for c in claims]
    first = grader().grade_batch(inputs)
    second = grader().grade_batch(list(reversed(inputs)))[::-1]
    assert first == second
    for v in first:
        assert v.score is not None and 0.0 <= v.score <= 1.0
        assert v.accepted == (v.score >= DEFAULT_THRESHOLD)


def test_threshold_param_moves_the_decision() -> None:
    claim = "The Harbour Museum holds 3,500,000 objects from Asia and Africa."
    assert grade(claim, threshold=0.0).accepted is True
    assert grade(claim, threshold=1.0).accepted is False


def test_corpus_documents_are_indexed_once() -> None:
    corpus = Corpus([CorpusDocument(id="d", text=REPORT)])
    g = grader(corpus)
    inp = ClaimSupportInput.model_validate(
        {"claim": "The museum opened in 1998.", "evidence": [{"source_id": "d"}]}
    )
    g.grade_batch([inp, inp])
    assert len([k for k in corpus._derived if k.startswith("claim_support/")]) == 1


# --- params and the shipped definition ------------------------------------------------------------------


def test_shipped_definition_holds_the_default_model() -> None:
    p = ClaimSupportParams.model_validate(_shipped_params())
    assert p.intercept == DEFAULT_INTERCEPT
    assert p.weights == DEFAULT_WEIGHTS
    assert p.center == DEFAULT_CENTER
    assert p.scale == DEFAULT_SCALE
    assert p.penalties == DEFAULT_PENALTIES
    assert p.threshold == DEFAULT_THRESHOLD
    assert p == ClaimSupportParams()


def test_kind_is_registered() -> None:
    assert get_kind("claim_support") is ClaimSupportGrader


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"weights": {"nonsense": 1.0}, "center": {"nonsense": 0.0}, "scale": {"nonsense": 1.0}}, "unknown"),
        ({"weights": {"recall_window": 1.0}, "center": {}, "scale": {}}, "no center/scale"),
        (
            {
                "weights": {"recall_window": 1.0},
                "center": {"recall_window": 0},
                "scale": {"recall_window": 0},
            },
            "> 0",
        ),
        ({"penalties": {"made_up": 1.0}}, "unknown rules"),
        ({"threshold": 1.5}, "less than or equal"),
        ({"extra_field": 1}, "Extra inputs"),
    ],
)
def test_bad_params_are_rejected(params: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ClaimSupportParams.model_validate(params)


def test_support_score_is_the_logistic_of_the_linear_model() -> None:
    p = ClaimSupportParams(
        intercept=0.5,
        weights={"recall_window": 2.0},
        center={"recall_window": 0.5},
        scale={"recall_window": 0.25},
        penalties={"negation_mismatch": 1.0},
    )
    values = dict.fromkeys(sf.FEATURE_NAMES, 0.0) | {"recall_window": 0.75, "negation_mismatch": 0.5}
    # z = 0.5 + 2 * (0.75 - 0.5) / 0.25 - 1.0 * 0.5 = 2.0
    assert support_score(values, p) == pytest.approx(1 / (1 + 2.718281828459045**-2.0))


# --- development data -----------------------------------------------------------------------------------

#: Balanced accuracy (supported vs not_supported, full cited page) of the shipped model on WiCE dev,
#: measured 0.845 when fitted (benchmarks/fit_claim_support.py; 0.836 in grouped CV with the vetoes of
#: explicit contradictions); the floor leaves a small margin.
WICE_DEV_FLOOR = 0.82


def test_balanced_accuracy_on_wice_dev_stays_above_the_floor() -> None:
    data = shared_data("wice")
    docs: list[CorpusDocument] = []
    inputs: list[ClaimSupportInput] = []
    labels: list[str] = []
    with open(data / "claims-dev.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["label"] == "partially_supported":
                continue
            doc_id = row["meta"]["id"]
            text = "\n".join(s for s in row["evidence"] if not s.startswith("(meta data)"))
            docs.append(CorpusDocument(id=doc_id, text=text))
            inputs.append(
                ClaimSupportInput.model_validate({"claim": row["claim"], "evidence": [{"source_id": doc_id}]})
            )
            labels.append(row["label"])
    verdicts = grader(Corpus(docs)).grade_batch(inputs)
    assert not any(v.is_error for v in verdicts)
    good = [v.accepted for v, lab in zip(verdicts, labels, strict=True) if lab == "supported"]
    bad = [v.accepted for v, lab in zip(verdicts, labels, strict=True) if lab == "not_supported"]
    frr = good.count(False) / len(good)
    far = bad.count(True) / len(bad)
    balanced = 1 - (far + frr) / 2
    assert balanced >= WICE_DEV_FLOOR, f"balanced accuracy {balanced:.3f} (FAR {far:.3f}, FRR {frr:.3f})"


def test_shipped_definition_is_valid(repo_root: Path) -> None:
    assert (repo_root / "graders" / "claim-support" / "v1.toml").is_file()


# --- claims of several sentences, citation markers --------------------------------------------------------


def test_citation_markers_are_stripped() -> None:
    assert sf.strip_citation_markers("Attendance rose in 2019 [1][2].") == "Attendance rose in 2019."
    assert sf.strip_citation_markers("It closed [3, 4] in 2014 [5-7].") == "It closed in 2014."
    assert sf.strip_citation_markers("A figure [citation needed].") == "A figure."
    assert sf.strip_citation_markers("The [2019] edition") == "The [2019] edition"  # not a marker
    assert sf.strip_citation_markers("no markers") == "no markers"


def test_citation_markers_are_not_numbers_to_find() -> None:
    plain = grade("Annual attendance rose to 412,000 visitors in 2019.")
    marked = grade("Annual attendance rose to 412,000 visitors in 2019 [1][2].")
    assert marked.accepted is True
    assert marked.score == pytest.approx(plain.score)
    assert "'1'" not in marked.reason and "'2'" not in marked.reason


def test_claim_parts_are_sentences_with_short_ones_joined() -> None:
    assert sf.claim_parts("The museum opened in Lisbon in 1998.") == ["The museum opened in Lisbon in 1998."]
    parts = sf.claim_parts(
        "The Harbour Museum opened in Lisbon in 1998. It grew. "
        "Attendance rose to 412,000 visitors in 2019 [1]."
    )
    assert parts == [
        "The Harbour Museum opened in Lisbon in 1998. It grew.",
        "Attendance rose to 412,000 visitors in 2019.",
    ]


def test_every_sentence_of_a_claim_must_be_supported() -> None:
    good = grade(
        "The Harbour Museum opened in Lisbon in 1998. Its collection holds 3.5 million objects from Asia and "
        "Africa. Annual attendance rose to 412,000 visitors in 2019."
    )
    assert good.accepted is True
    assert good.reason.startswith("each of the claim's 3 sentences is supported")
    assert [p["accepted"] for p in good.details["claim_parts"]] == [True, True, True]

    one_wrong = grade(
        "The Harbour Museum opened in Lisbon in 1998. Its collection holds 3.5 million objects from Asia and "
        "Africa. Annual attendance rose to 412,000 visitors in 2016."
    )
    assert one_wrong.accepted is False
    assert one_wrong.reason.startswith(
        "claim sentence 3 of 3 ('Annual attendance rose to 412,000 visitors in 2016.')"
    )
    assert one_wrong.details["claim_part"] == 3
    assert [p["accepted"] for p in one_wrong.details["claim_parts"]] == [True, True, False]
    # read as one, the whole claim would be carried by its two well-supported sentences
    text = " ".join(p["text"] for p in one_wrong.details["claim_parts"])
    whole = sf.extract(sf.analyse_claim(text), [sf.index_text(REPORT)])
    assert support_score(whole.values, grader().p) >= DEFAULT_THRESHOLD and not whole.vetoes
