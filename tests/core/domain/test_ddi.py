"""A DDI Codebook read as a starting declaration (dpsynth_core.domain.ddi): documented variables, never a record,
and never a codebook's summary statistics."""

from __future__ import annotations

import json

import pytest

from dpsynth_core.domain import TableDomain
from dpsynth_core.domain.declaration import parse_declaration, read_declaration_bytes
from dpsynth_core.errors import DomainError
from tests.conftest import shared_path


def _codebook(variables: str) -> bytes:
    return f'<codeBook xmlns="ddi:codebook:2_5"><dataDscr>{variables}</dataDscr></codeBook>'.encode()


def test_adults_codebook_declares_what_its_documentation_does_and_no_statistic():
    """Adult's public declaration written as a DDI 2.5 codebook (tests/datasets/adult.ddi.xml): read back, every
    column is declared as the JSON declaration declares it, the unknown code '?' (``invalrng``, a category marked
    missing) left out, and the codebook's summary statistics (fnlwgt's and capital-loss's sample maximum) unread, so
    those bounds stay to declare as the documentation leaves them."""
    path = shared_path("adult.ddi.xml")
    spec = parse_declaration(read_declaration_bytes(path), str(path))
    declared = json.loads(shared_path("adult.domain.json").read_text())["columns"]
    assert spec["columns"] == declared
    assert spec["dataset"].startswith("Adult (UCI") and "DDI codebook adult.ddi.xml" in spec["documentation"]
    problems = " ".join(TableDomain.from_json(spec).problems())
    assert "'fnlwgt'" in problems and "'capital-loss'" in problems and "never taken from the data" in problems


def test_each_kind_of_variable_starts_as_the_codebook_documents_it():
    spec = parse_declaration(
        _codebook(
            '<var name="sex"><catgry><catValu>1</catValu><labl>Male</labl></catgry>'
            "<catgry><catValu>2</catValu><labl>Female</labl></catgry>"
            '<catgry missing="Y"><catValu>9</catValu><labl>Refused</labl></catgry>'
            '<catgry><catValu>8</catValu><labl>Don\'t know</labl><catStat type="freq">3</catStat></catgry>'
            '<invalrng><range min="8" max="9"/></invalrng></var>'
            '<var name="region"><valrng><item VALUE="N"/><item VALUE="S"/></valrng></var>'
            '<var name="income" intrvl="contin"><valrng><range UNITS="REAL" min="0"/></valrng>'
            '<sumStat type="max">412000</sumStat></var>'
            '<var name="hhsize" intrvl="discrete"><valrng><range min="1" max="20"/></valrng></var>'
            '<var name="visit"><varFormat type="numeric" category="date" formatname="DATE11"/></var>'
            '<var name="weight" dcml="2"><varFormat type="numeric"/></var>'
            '<var name="person_id"><varFormat type="character"/></var>'
            '<var name="comment"><varFormat type="character"/></var>'
        ),
        "survey.xml",
    )["columns"]
    assert spec["sex"] == {"type": "categorical", "values": ["1", "2"], "labels": {"1": "Male", "2": "Female"}}
    assert spec["region"] == {"type": "categorical", "values": ["N", "S"]}
    assert spec["income"] == {"type": "float", "min": 0}  # the sample's maximum is no bound
    assert spec["hhsize"] == {"type": "integer", "min": 1, "max": 20}
    assert spec["visit"] == {"type": "date"} and spec["weight"] == {"type": "float"}
    assert spec["person_id"] == {"type": "drop"} and spec["comment"] == {"type": "text"}


def test_xml_that_is_no_codebook_or_expands_entities_is_one_line():
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE codeBook [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        b'<codeBook><dataDscr><var name="x"><labl>&b;</labl></var></dataDscr></codeBook>'
    )
    refused = {
        bomb: "declares XML entities",
        b'<?xml version="1.0"?><gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd"/>': "no DDI codebook",
        b"<codeBook><dataDscr><var name='x'></dataDscr>": "not well-formed XML",
        _codebook(""): "documents no variable",
    }
    for raw, said in refused.items():
        with pytest.raises(DomainError, match=said) as found:
            parse_declaration(raw, "codebook.xml")
        assert "\n" not in str(found.value)
