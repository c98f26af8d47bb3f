"""The release card's wording: plain numbers, and no guarantee shown as one."""

from __future__ import annotations

import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.release.card import plain_guarantee, plain_number, render_card_html
from dpsynth_core.wording import protects
from tests.conftest import stated

TABLE = pd.DataFrame({"sex": ["Female", "Male"] * 40, "age": [str(20 + i % 60) for i in range(80)]})
DOMAIN = {
    "columns": {
        "sex": {"type": "categorical", "values": ["Female", "Male"]},
        "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
    }
}


def test_numbers_are_plain_digits():
    assert [plain_number(v) for v in (34312.4, 2.718, 0.0475, 1.0, 1e-5)] == [
        "34,312",
        "2.72",
        "0.0475",
        "1",
        "0.00001",
    ]
    words = plain_guarantee(34312.4, 0.03, "add/remove one record")
    assert "34,313" in words and "e+" not in words and "may exceed 10^13" in words  # a bound: rounded up
    assert "protects no one in practice" in words and "at most more than" not in words
    # a person's rows over a method whose runs compose (deniability): delta 1 is no guarantee, and is said so
    vacuous = plain_guarantee(3163.3, 1.0, "add/remove one record")
    assert vacuous.startswith("This release promises nothing about one person's record: its delta is 1")
    assert "probability at most 1" not in vacuous
    assert protects({"epsilon": 1.0, "delta": 1e-10}) and protects({"epsilon": 20.0, "delta": 0.0})
    assert not any(
        map(protects, ({"epsilon": 3163.3, "delta": 1.0}, {"epsilon": 1055.0, "delta": 8e-4}, {"epsilon": None}))
    )


def test_a_method_without_guarantee_names_no_privacy_unit_and_is_not_green():
    card = synthesize(TABLE, DOMAIN, 1.0, method="microagg", random_state=1, k=10).card
    assert stated(card)["neighbouring"] is None
    assert all(spend["neighbouring"] is None for spend in card["spends"])
    page = render_card_html(card)
    assert 'class="guarantee none"' in page and "privacy unit" not in page.lower()


def test_a_long_budget_split_is_summed_in_the_body_and_listed_in_an_appendix():
    """Issue 20 point 7: 41 "choice of marginal, round N" rows filled five PDF pages; the body now sums the
    measurements by kind (column names and round numbers taken out) and Appendix A lists every one; the
    randomness details move to Appendix B."""
    from dpsynth_core.release.card import split_summary

    columns = [{"column": n, "kind": "integer", "description": "", "missing_allowed": True} for n in ("age", "sex")]
    split = {"row count": 0.01, "marginal age": 0.02, "marginal sex": 0.02, "marginal age x sex": 0.5}
    split.update({f"choice of marginal, round {i}": 0.01 for i in range(1, 21)})
    summary = split_summary({"budget_split": split, "domain": {"columns": columns}})
    assert summary == pytest.approx(
        {
            "row count": 0.01,
            "marginal … (2)": 0.04,
            "choice of marginal, every round (20)": 0.2,
            "marginal age x sex": 0.5,
        }
    )
    card = synthesize(TABLE, DOMAIN, 1.0, method="marginals").card
    page = render_card_html({**card, "budget_split": split})
    body, appendix = page.split("<h2>Appendix A")
    assert "round 3," not in body and "every round" in body and "round 3" in appendix
    assert "ChaCha20" not in body and "Appendix B" in body and "ChaCha20" in appendix


def test_a_list_of_categories_that_came_out_as_one_value_is_said_in_memory_and_in_chunks():
    """The Guardian's police killings (467 records, 28 columns, epsilon 1) released one seed's every state as
    Louisiana, where 22 records were: the card says a list of at least three declared categories came out as one
    value (at least 99% of its cells that are not missing), that the records may hold little else or the noise
    told no other value from empty; not for two declared values (a column 95% male), nor below the share; a
    release written in chunks says the same (its tally)."""
    from dpsynth_core.domain import TableDomain
    from dpsynth_core.release.dominance import TextTally, single_value_notes

    domain = TableDomain.from_json(
        {
            "columns": {
                "state": {"type": "categorical", "list": "us_state_codes"},
                "gender": {"type": "categorical", "values": ["Female", "Male"]},
                "armed": {"type": "categorical", "values": ["No", "Firearm", "Knife"]},
            }
        }
    )
    synthetic = pd.DataFrame(
        {
            "state": ["LA"] * 450 + [None] * 20,
            "gender": ["Male"] * 470,
            "armed": ["Firearm"] * 464 + ["Knife"] * 6,  # 98.7%: below the share
        }
    )
    (note,) = single_value_notes(synthetic, domain)
    assert note.startswith("One value, 'LA', fills 100.0% of the cells of the column 'state' that are not missing")
    assert "of its 51 declared values" in note and "could tell no other value from empty" in note
    tally = TextTally(["state", "gender", "armed"])
    for start in range(0, 470, 100):
        tally.add(synthetic.iloc[start : start + 100])
    assert single_value_notes(tally, domain) == [note]
    assert single_value_notes(synthetic.assign(armed="Knife"), domain)[1].startswith("One value, 'Knife'")


def test_the_card_names_the_columns_in_no_measured_pair():
    """A wide table's release at a small epsilon measures few pairs (compas, 1,000 records at epsilon 1: 7 pairs for
    26 columns): the columns in none keep their own distributions but none of their relationships, and the card
    says so, from the method's public list of what it measured; the sentence's grammar follows its counts."""
    from dpsynth_core.release.card import unjoined_notes
    from tests.conftest import complete_domain, shared_path

    real = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False).iloc[:1000]
    release = synthesize(real, complete_domain("compas"), 1.0, random_state=0)
    measured = release.card["method_details"]["measured_marginals"]
    joined = {c for m in measured if len(m["marginal"]) > 1 for c in m["marginal"]}
    alone = [c for c in release.data.columns if c not in joined]
    (note,) = [n for n in release.card["notes"] if "keeps its own distribution" in n]
    assert alone and note.startswith(f"{len(alone)} of the {len(release.data.columns)} columns are in none of the")
    assert f"'{alone[0]}'" in note
    one = {"measured_marginals": [{"marginal": ["a"]}, {"marginal": ["a", "b"]}]}
    assert unjoined_notes(one, ["a", "b", "c"])[0].startswith(
        "1 of the 3 columns is not in the one pair measured ('c')"
    )
    assert unjoined_notes({"measured_marginals": [{"marginal": ["a", "b", "c"]}]}, ["a", "b", "c"]) == []
    assert unjoined_notes({}, ["a", "b", "c"]) == []  # a method that measures no pairs says nothing here
    # with a column of one declared value, never missing: no relationship to keep, not counted (its two kinds of
    # assessment, one value each but declared with missing values, a box that may be left empty, are)
    spec = complete_domain("compas")
    spec["columns"]["year"] = {"type": "integer", "min": 2013, "max": 2013, "missing": False}
    again = synthesize(real.assign(year="2013"), spec, 1.0, random_state=0)
    (note,) = [n for n in again.card["notes"] if "keeps its own distribution" in n]
    assert f"of the {len(again.data.columns) - 1} columns" in note and "'year'" not in note


def test_a_dominated_text_column_with_few_values_out_names_each_one():
    """A species column declared as any string of up to 40 letters: two values came out, the real commonest at
    two thirds and a made-up 40-letter string at one third. The card names both with their shares and says either
    may be made up (the made-up one is not the commonest); so does a release written in chunks. The Preview's
    publisher-only line, which reads the real data, says which one is in no record."""
    from dpsynth_core.data.encoding import encode_column
    from dpsynth_core.domain import TableDomain
    from dpsynth_core.evaluation.summaries import dominant_values_in_data
    from dpsynth_core.release.dominance import TextTally, dominance_notes

    made_up = "BCUEVQRKLFKJLDTKKYVMMELPVPPRNSZQUWEOQIF"
    synthetic = pd.DataFrame({"species": ["GULLS"] * 670 + [made_up] * 330})
    facts = {"species": {"values_out": 2, "needed": 3038, "epsilon": 0.0444}}
    (note,) = dominance_notes(synthetic, facts)
    assert f"only 2 values of this column came out of its noisy count ('GULLS' 67.0%, '{made_up[:30]}…' 33.0%)" in note
    assert "any of them may be made up" in note and "needed about 3,038 records" in note
    tally = TextTally(["species"])
    for start in range(0, 1000, 300):
        tally.add(synthetic.iloc[start : start + 300])
    assert dominance_notes(tally, facts) == [note]
    many = dominance_notes(synthetic, {"species": {"values_out": 9, "needed": None, "epsilon": 1.0}})
    assert "this one may be made up" in many[0] and "'BCUEV" not in many[0]  # many out: the commonest only
    species = {"type": "text", "generator": "letters", "max_length": 40, "alphabet": "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
    domain = TableDomain.from_json({"columns": {"species": species}})
    real = pd.DataFrame({"species": ["GULLS"] * 600 + ["SPARROWS"] * 400})
    (said,) = dominant_values_in_data(real, synthetic, domain)
    assert "it is in 600 of your records" in said and "(33.0%) is in none of your records: a made-up value" in said
    assert "made-up" not in dominant_values_in_data(real, synthetic.assign(species="GULLS"), domain)[0]
    # a column mostly missing (comics' gender or sexual minority, 149 of 21,821 filled): the share is of its filled
    # cells, and their made-up value says nothing of the data; how many are missing is another matter
    sparse = pd.DataFrame({"species": [made_up] * 10 + [None] * 990})
    (said,) = dominant_values_in_data(real, sparse, domain)
    assert f"'{made_up[:30]}" in said and "fills 100.0% of the filled cells (1.0%) of 'species'" in said, said
    assert "Its filled cells hold no information about your data" in said, said
    read_back = sparse.fillna("")  # the same release read back from the workspace's file: missing cells as ''
    assert dominant_values_in_data(real, read_back, domain) == [said] and "'' (" not in said
    nearly = pd.DataFrame({"species": ["GULLS"] * 9_999 + [None]})  # one missing of 10,000: not "(100.0%)"
    (said,) = dominant_values_in_data(real, nearly, domain)
    assert "fills 100.0% of the filled cells (all but 1) of 'species'" in said, said
    # a pseudonym column none of whose values came out shows its placeholder, value-00, which a real value's pseudonym
    # may be too (pharmaversesdtm's AE body systems, 27 declared: 91 of 1,191 records): said, lest it be read as data
    systems = TableDomain.from_json({"columns": {"system": {"type": "text", "generator": "any", "size": 27}}})
    terms = pd.DataFrame({"system": [f"DISORDERS {i}" for i in range(200)]})
    labels = pd.Series(encode_column(systems.kept["system"], terms["system"], systems.missing_markers).labels)
    placeholder = systems.kept["system"].label_at(0)
    (said,) = dominant_values_in_data(terms, pd.DataFrame({"system": [placeholder] * 50}), systems)
    held = int((labels == placeholder).sum())
    assert (
        held
        and f"it is the placeholder a release shows when no value of the column comes out, fixed in advance: "
        f"that {held:,} of your records are written so too says nothing of them."
        in said
    ), said
    unheld = pd.DataFrame({"system": [v for v, label in zip(terms["system"], labels) if label != placeholder]})
    (said,) = dominant_values_in_data(unheld, pd.DataFrame({"system": [placeholder] * 50}), systems)
    assert (
        "placeholder a release shows when no value of the column comes out, fixed in advance: in none of your "
        "records. This column holds no information about your data."
        in said
        and "made-up" not in said
    ), said
    other = labels[labels != placeholder].iloc[0]
    (said,) = dominant_values_in_data(terms, pd.DataFrame({"system": [other] * 50}), systems)
    assert "placeholder" not in said, said
    (said,) = dominant_values_in_data(real, sparse.fillna(made_up), domain)
    assert "fills 100.0% of the column 'species'" in said and "This column holds no information" in said, said
    # any string is released as its public pseudonym and an English word in lower case: a real value's released form
    # is in the records, a pseudonym no record hashes to is not (Males' industries declared as any of 100 strings)
    industry = TableDomain.from_json({"columns": {"industry": {"type": "text", "generator": "any", "size": 100}}})
    column = industry.kept["industry"]
    real = pd.DataFrame({"industry": ["Trade"] * 600 + ["Manufacturing"] * 400})
    trade, manufacturing = column.normalise(["Trade", "Manufacturing"])
    spare = next(v for v in (column.label_at(i) for i in range(100)) if v not in (trade, manufacturing))
    (said,) = dominant_values_in_data(real, pd.DataFrame({"industry": [trade] * 700 + [spare] * 300}), industry)
    assert f"'{trade}' fills 70.0%" in said and "it is in 600 of your records" in said
    assert f"'{spare}' (30.0%) is in none of your records: a made-up value" in said
    words = TableDomain.from_json({"columns": {"species": {"type": "text", "generator": "english_word"}}})
    (said,) = dominant_values_in_data(
        real.rename(columns={"industry": "species"}).replace("Trade", "Gull"),
        pd.DataFrame({"species": ["gull"] * 1000}),
        words,
    )
    assert "it is in 600 of your records" in said
