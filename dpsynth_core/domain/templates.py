"""Starting declarations from column *names*, public templates and a file's *codebook*, never from values.

A template is only a first guess for the publisher to review: "age" becomes whole numbers 0..120, "hour"
0..23, "latitude" and "longitude" real numbers -90..90 and -180..180 (degrees), "sex" the public list
Female/Male, a name or an id is dropped, and so is a column whose header cell is empty (``Unnamed: 6``: a row
index, or the empty column of a comma ending every line); a date asks for its range. Anything unrecognised
starts as free text with no generator, which the Domain page flags until the publisher declares it.

A statistical package's file (SPSS, Stata, SAS) carries its codebook in its metadata, read without
any record (:func:`dpsynth_core.data.formats.codebook`): a column with value labels starts as its
categories (the codes, each shown with its label), its declared missing codes left out (they are read
as missing); any other column takes its name's template, else its variable label's ("NLS ID": an id,
dropped), else the kind its storage type and display format say (:mod:`.display_formats`: whole numbers, numbers
with the decimal places shown, dates, text: the range still to supply). The codebook is kept in the declaration's
notes (``notes["codebook"]``), which marks what came from the file's metadata and
lets a release be written back with its labels and missing codes. The publisher confirms every column:
each kept column started from the codebook is ``"confirmed": false`` there until the publisher sets it
(the Domain page's tick, or the JSON), and until then the declaration is not complete (:func:`unconfirmed_columns`).
"""

from __future__ import annotations

import math
import re

from ..wording import counted, first_names
from .display_formats import format_places, shows_whole, stata_period
from .header import HEADER_JOIN, names_hint
from .public_lists import public_list

#: Words that end in "date" but name no date (a column ``candidate`` or ``update_count`` is not one).
_NOT_DATES = "(candidate|update|validate|invalidate|mandate|accommodate|consolidate|liquidate|intimidate|sedate)"

_RULES = [
    (r"^(year|yr|season)_id$", {"type": "integer"}),  # Lahman's yearID: a season, not an identifier
    (
        r"(^|_)(id|pid|uid|uuid|ssn|email|e_mail|phone|phone_?(number|no)|telephone)$|address(es)?$"  # streetaddress
        r"|^(name|first|last|full_?name|surname)$|case_?number"
        # a person's name, however it is parted: first_name, nameFirst (Lahman's), bioname, player_name (a team's,
        # a company's or a school's name is kept)
        r"|^((first|last|middle|given|family|full|maiden|birth|bio|user|nick|sur)_?name|name_(first|last|given|middle"
        r"|full))$|^(patient|person|player|member|customer|employee|student|client|mother|father|owner|contact"
        r"|respondent|driver|author|doctor|physician|officer|victim|teacher|candidate|legislator|recipient)_"
        r"((full|first|last|given|family)_)?name$"
        # the reference a survey's sender attached to a respondent (Qualtrics' ExternalReference): an identifier
        r"|^external_(data_)?reference$"
        # an id glued to what it names: CDISC's STUDYID, USUBJID and SUBJID; patid, caseid, schoolid (a site is kept)
        r"|^(u?subj|study|pat|patient|person|hh|household|resp|case|record|member|visit|encounter|claim"
        r"|customer|employee|student|school|user|client|family|child|mother|game|player)id$"
        # a document's or an account's number (Seattle's pet licenses: license_number; account_no, policy_nr)
        r"|(^|_)(license|licence|account|acct|policy|passport|serial|invoice|order|ticket|membership|registration"
        r"|badge|permit|plate|loan|card|contract|transaction|booking|reservation|receipt)_?(number|no|num|nr)$"
        r"|(^|_)(url|web_?site|web_?page|home_?page)s?$",  # a web address: a record's own page names it
        {"type": "drop"},
    ),
    # a header cell left empty (named by its position, :func:`dpsynth_core.data.header_names.name_columns`): a row index
    # R or pandas wrote, or the empty column of a comma ending every line; no documentation can describe it. So is
    # a row index that is named: R's row names as Rdatasets and others write them, pandas' reset index
    (r"^unnamed_[0-9]+$|^(rownames|row_names|index)$", {"type": "drop"}),
    (r"^age$", {"type": "integer", "min": 0, "max": 120}),
    (r"^age_(in_)?(years|yrs)$", {"type": "float", "min": 0, "max": 120}),  # an age in years may be a fraction
    # a body's or a thing's weight or height (in any unit), or a survey's weight (the ACS's pwgtp, IPUMS' perwt): a
    # number from 0, the largest still to supply
    (
        r"(^|_)(weight|wgt|wt|height)(_(kg|g|lb|lbs|pounds|grams|cm|m|in|inches|ft))?$"
        r"|^(pwgtp|perwt|hhwt|wtfinl|(final|sample|survey|person|household)_weight)$",
        {"type": "float", "min": 0},
    ),
    # not ``hr`` alone: as often a heart rate (vital signs), home runs (Lahman's Teams: up to 307) or a hazard ratio
    (r"^(hour|hour_of_day)$", {"type": "integer", "min": 0, "max": 23}),
    (r"^(minute|minute_of_hour)$", {"type": "integer", "min": 0, "max": 59}),
    (r"(^|_)(lat|latitude)$", {"type": "float", "min": -90, "max": 90}),  # LocationLatitude, start_lat, pickup_lat
    (r"(^|_)(lon|lng|long|longitude)$", {"type": "float", "min": -180, "max": 180}),
    # Qualtrics' response fields (:data:`~dpsynth_core.domain.header.QUALTRICS_FIELDS`) that its documentation
    # bounds: the share of the survey answered (a percentage), the seconds taken, and whether it was finished (1 or
    # 0 as its numeric values, True or False as its choice text: either export reads, a label as its code)
    (r"^progress$", {"type": "integer", "min": 0, "max": 100}),
    (r"^duration_in_seconds$", {"type": "integer", "min": 0}),
    (r"^finished$", {"type": "categorical", "values": ["1", "0"], "labels": {"1": "True", "0": "False"}}),
    (r"^(sex|gender)$", {"type": "categorical", "values": list(public_list("sex"))}),
    (r"(^|_)country$", {"type": "categorical", "values": list(public_list("countries"))}),
    (
        r"(^|_)(country_?code|iso_?3|iso_?a3|iso_alpha_?3|alpha_?3|country_iso_?3?)$",
        {"type": "categorical", "values": list(public_list("country_codes_3"))},
    ),
    (
        r"(^|_)(iso_?2|iso_?a2|iso_alpha_?2|alpha_?2|country_iso_?2)$",
        {"type": "categorical", "values": list(public_list("country_codes_2"))},
    ),
    (r"(^|_)state$", {"type": "categorical", "values": list(public_list("us_states"))}),
    (
        r"(^|_)state_?(code|abb|abbr|abbrev|abbreviation)$",  # stevedata's ANES writes stateabb
        {"type": "categorical", "values": list(public_list("us_state_codes"))},
    ),
    (r"zip|postcode|postal", {"type": "text", "generator": "digits", "length": 5}),
    # a count of things (number_vmail_messages, num_children, n_ratings, priors_count): whole numbers from 0, the
    # largest still to supply; a rate (count_per_hour) is not one
    (r"^(?!.*_per_)((number|num|n|count)_(of_)?[a-z]|(nr|no)_of_|.*(^|_)counts?$)", {"type": "integer", "min": 0}),
    # a part of a date in a column of its own (hotel bookings' arrival_date_year, _week_number, _day_of_month): a
    # number with the range the calendar gives it, or a year's whole number whose range the publisher supplies;
    # a month or a day of the week is as often a name as a number, so neither is guessed (nor a date)
    (r"(^|_)(week_number|week_of_year|weeknum|iso_week)$", {"type": "integer", "min": 1, "max": 53}),
    # FiveThirtyEight's births files write date_of_month
    (r"(^|_)(day_of_month|dayofmonth|mday|date_of_month)$|(^|_)date_day$", {"type": "integer", "min": 1, "max": 31}),
    (r"(^|_)(day_of_year|dayofyear|yday)$", {"type": "integer", "min": 1, "max": 366}),
    (r"(^|_)(year|yr)$", {"type": "integer"}),
    # the year something happened, named year first or after what it dates (Ames' Year.Built, Yr.Sold,
    # Garage.Yr.Blt); a year's own column of values (year_1960) or an age in years (two_year_recid) is not one
    (r"^(year|yr)_[a-z]+|_(year|yr)_(built|blt|sold|bought|opened|founded|started|ended|born)$", {"type": "integer"}),
    (r"(^|_)date_(month|quarter|day_of_week|weekday|week|hour|minute|second)$", {"type": "text"}),
    (r"(^|_)date_(num|number|numeric|decimal)$", {"type": "float"}),  # modeldata's arrival_date_num, a decimal year
    # CDISC's dates (clinical trials' SDTM and ADaM): --DTC and --DTM an ISO 8601 date and time, --DT a date
    (r"date_?time|time_?stamp|_at$|^[a-z0-9]+(dtc|dtm)$", {"type": "datetime"}),
    (r"^(adt|[a-z0-9]{2,}dt)$", {"type": "date"}),
    (r"(^|_)(date[a-z]*|dob)(_|$)|[a-z]{3,}_on$|(^|_)birthday$", {"type": "date"}),  # dates, dateofbirth, birthday
    (rf"(^|_)(?!{_NOT_DATES}(_|$))[a-z]+date(_|$)", {"type": "date"}),  # birthdate, startdate
    (r"^(is|has)_|yes_?no", {"type": "categorical", "values": list(public_list("yes_no"))}),
    # CDISC's flags (clinical trials' SDTM and ADaM: SAFFL, ITTFL, DTHFL, TRTEMFL, ANL01FL): Y, or N, or blank
    (
        r"^[a-z][a-z0-9]{2,}fl$|^[a-z]{2,}[0-9]+_fl$",  # DTH30FL reads dth30_fl
        {"type": "categorical", "values": list(public_list("yes_no_codes"))},
    ),
    # REDCap's columns beside the fields: a repeated instrument's instance (1, 2, ...), a survey's identifier
    (r"^redcap_repeat_instance$", {"type": "integer", "min": 1}),
    (r"^redcap_survey_identifier$", {"type": "drop"}),
    # a survey tool's columns beside the questions (KoboToolbox's _submission_time, _submitted_by, ...; ODK's device
    # metadata): when it was sent, and who or what sent it, an identifier
    (r"^submission_time$", {"type": "datetime"}),
    (
        r"^(submitted_by|submitter_name|deviceid|subscriberid|simserial|username|xform_id_string|validation_status"
        r"|parent_index|parent_table_name)$",
        {"type": "drop"},
    ),
]


def name_words(name: str) -> str:
    """A column's name as lower-case words joined by ``_``: quotes around it ignored (a header written ``'age'``,
    as statsmodels' anes96 file has it, still reads as age), and camel case and any run of characters other than
    letters and digits (spaces, dots as R writes names, hyphens) part words. ``arrival.date.year``,
    ``ArrivalDateYear`` and ``Arrival Date Year`` all read ``arrival_date_year``; ``patientID`` reads ``patient_id``.

    >>> name_words("ArrivalDateYear"), name_words("'Country Code'"), name_words("patientID"), name_words("Unnamed: 6")
    ('arrival_date_year', 'country_code', 'patient_id', 'unnamed_6')
    """
    text = name.strip().strip("'\"`").strip()
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


#: A column named by a question (a survey's export names each column by its question's text) when its name holds
#: a question mark or at least this many words: only the rules that drop a column apply to it (an identifier, a
#: person's name or address), since the others read a name's words as a column's ("Is it rude to recline your
#: seat?" is no ``is_`` flag of Yes and No: its answers are "Yes, somewhat rude" and the like).
QUESTION_WORDS = 8


#: What a survey tool writes under a question of one answer, in a header read over two rows (SurveyMonkey:
#: ``Gender | Response``): the column is named by the question alone when its template is chosen.
ANSWER_PLACEHOLDER = re.compile(rf"\s*{re.escape(HEADER_JOIN.strip())}\s*(Open-Ended )?Response$")


def template_for(name: str) -> dict:
    """The starting declaration of one column, from its name alone (read as words: :func:`name_words`; a survey's
    ``Gender | Response`` as ``Gender``, :data:`ANSWER_PLACEHOLDER`; a header over several rows whose first part is
    one word, Qualtrics' ``RecipientLastName | Recipient Last Name``, by that word when a rule knows it); a question
    (:data:`QUESTION_WORDS`) starts as text unless a rule drops it.

    >>> template_for("Gender | Response")["type"], template_for("Which character shot first? | Response")["type"]
    ('categorical', 'text')
    >>> template_for("RecipientLastName | Recipient Last Name"), template_for("Q1 | How old are you?")
    ({'type': 'drop'}, {'type': 'text'})
    """
    name = ANSWER_PLACEHOLDER.sub("", name)
    code = name.split(HEADER_JOIN, 1)[0].strip()
    if HEADER_JOIN in name and " " not in code and (found := _template(code)) != {"type": "text"}:
        return found  # Qualtrics' field above its text, ``RecipientLastName | Recipient Last Name``: the code says it
    return _template(name)


def _template(name: str) -> dict:
    words = name_words(name)
    question = "?" in name or words.count("_") + 1 >= QUESTION_WORDS
    for pattern, spec in _RULES:
        if question and spec.get("type") != "drop":
            continue
        if re.search(pattern, words):
            return {k: (type(v)(v) if isinstance(v, (list, dict)) else v) for k, v in spec.items()}
    return {"type": "text"}


def declaration_from_names(names, dataset: str = "", codebook: dict | None = None) -> dict:
    """A starting declaration for a table, built from its column names and, when the file carries one,
    its ``codebook`` (:func:`dpsynth_core.data.formats.codebook`: metadata only, never a value)."""
    if not codebook:
        return {
            "dataset": dataset,
            "documentation": "started from column-name templates; review every column",
            "columns": {name: template_for(name) for name in names},
        }
    entries = codebook.get("columns") or {}
    return {
        "dataset": dataset,
        "documentation": f"started from the codebook in {codebook.get('file') or dataset} (its metadata: value labels, "
        "missing codes, storage types; no record read) and column-name templates; review every column",
        "columns": {
            name: template_from_codebook(name, entries[name]) if name in entries else template_for(name)
            for name in names
        },
        "notes": {"codebook": {**codebook, "columns": {n: {**e, "confirmed": False} for n, e in entries.items()}}},
    }


def with_paths(described: dict, names) -> dict:
    """``described`` (a parsed declaration or dictionary) with each column the file holds under a group's path
    named as the file names it: KoboToolbox's "include groups in headers" writes the form's ``age`` as
    ``household/age`` and ``fruit/apple`` as ``household/fruit/apple``. Names only.

    >>> with_paths({"columns": {"age": {"type": "integer"}}}, ["household/age"])["columns"]
    {'household/age': {'type': 'integer'}}
    """
    given = dict(described.get("columns") or {})
    renamed, taken = {}, set()
    for name in map(str, names):
        if name in given or "/" not in name:
            continue
        parts = name.split("/")
        tail = next((t for t in ("/".join(parts[i:]) for i in range(1, len(parts))) if t in given), None)
        if tail is not None and tail not in taken:
            renamed[name] = tail
            taken.add(tail)
    if not renamed:
        return described
    columns = {name: given[tail] for name, tail in renamed.items()}
    columns |= {name: spec for name, spec in given.items() if name not in taken}
    return {**described, "columns": columns}


def from_dictionary(started: dict, described: dict) -> dict:
    """A starting declaration (``started``, from a file's names or codebook) with every column a data dictionary
    describes (``described``: a REDCap data dictionary, an XLSForm, a Table Schema or a declaration, parsed, its
    columns matched to the file's group paths by :func:`with_paths`) taking the dictionary's declaration; the
    file's other columns keep their start, the dictionary's columns the file does not hold are left out
    (:func:`dictionary_notes` names them); how the dictionary says the file is written (``notes["reading"]``) is
    kept."""
    described = with_paths(described, started["columns"])
    given = described.get("columns") or {}
    columns = {name: given.get(name, spec) for name, spec in started["columns"].items()}
    out = {**started, "columns": columns}
    out["documentation"] = (
        f"{described.get('documentation') or 'started from a data dictionary'}; any column it "
        "does not describe from its name's template"
    )
    if described.get("missing_values"):
        out["missing_values"] = described["missing_values"]
    if (described.get("person") or {}).get("column") in columns:  # a declaration's privacy unit, when it fits
        out["person"] = described["person"]
    if reading := (described.get("notes") or {}).get("reading"):  # how its file is written (a package's dialect)
        out["notes"] = {**(out.get("notes") or {}), "reading": reading}
    return out


#: Columns a REDCap export adds when a record has several rows (a longitudinal project's events, a repeating
#: instrument's instances): its first column, the record's id, then names a person with several rows.
REDCAP_ROWS = ("redcap_event_name", "redcap_repeat_instance")


def dictionary_notes(names, described: dict | None = None) -> list[str]:
    """What the publisher should know of a start from a data dictionary (``described``): the dictionary's columns
    the file does not hold; and, for a REDCap export whose records have several rows (:data:`REDCAP_ROWS`), that
    its record id names a person, to declare as the privacy unit with the most rows the project's design allows.
    From the names and the dictionary alone."""
    names, notes = [str(n) for n in names], []
    missing = [c for c in (described or {}).get("columns") or {} if c not in names]
    if hint := names_hint(names, missing):  # a file read without its header line: the dictionary's names are its
        notes.append(hint[0].lower() + hint[1:])
    elif missing:
        shown, columns = first_names(missing, 5), counted(len(missing), "column")
        notes.append(f"the dictionary describes {columns} the file does not hold ({shown}): left out")
    held = [c for c in REDCAP_ROWS if c in names]
    if held and names:
        notes.append(
            f"the file has {' and '.join(held)}: REDCap writes a row per record and event (or repeated instrument), so "
            f"a record ('{names[0]}') may have several rows. Protect each record, not each row: declare the person "
            f'unit (the Privacy page\'s Who is protected; in a declaration "person": {{"column": "{names[0]}", '
            '"max_rows": K}), with K the most rows the project\'s design gives a record (its events times its '
            "repeats), not a count read from the data"
        )
    return notes


def restored_declaration(saved: dict | None, names, dataset: str = "", codebook: dict | None = None):
    """``(declaration, offered)``: what a file starts with, and the codebook's start offered beside it.

    A declaration saved for the same records (found by the ledger, perhaps made for a CSV of them) is
    the publisher's own word, confirmed on an earlier visit: it wins over the file's codebook, its columns
    matched to the file's names (:func:`matched_to`). The codebook's starting declaration
    (:func:`declaration_from_names`) is then ``offered`` when it would change something, for the publisher
    to apply on request (:func:`with_codebook`); with no saved declaration it is the start and nothing
    is offered. A saved declaration that names none of the file's columns (the same records read under other
    names: without their header line, or with the names typed from their documentation) is no start for them: the
    file's own start is.
    """
    started = declaration_from_names(names, dataset, codebook)
    if not saved:
        return started, None
    restored = matched_to(saved, names)
    if not set(restored.get("columns") or {}) & {str(n) for n in names}:
        return started, None
    kept = _entries(restored)
    offered = started if codebook and _entries(started) != kept else None
    return restored, offered


def _entries(declaration: dict) -> dict:
    """The codebook's entries a declaration was started from, without the publisher's ticks."""
    entries = ((declaration.get("notes") or {}).get("codebook") or {}).get("columns") or {}
    return {n: {k: v for k, v in e.items() if k != "confirmed"} for n, e in entries.items()}


def matched_to(saved: dict, names) -> dict:
    """A saved declaration with its columns named as the file names them: a column the file names
    exactly keeps its declaration; else one whose name differs only in letter case (an SPSS portable
    file gives every name in capitals: ``age`` is ``AGE``) takes it, when no other column of the
    declaration has that name in another case. Its codebook notes and person column follow."""
    declared = saved.get("columns") or {}
    folded: dict[str, list[str]] = {}
    for key in declared:
        folded.setdefault(key.casefold(), []).append(key)
    renamed = {}
    for name in names:
        found = folded.get(str(name).casefold(), [])
        if name not in declared and len(found) == 1 and found[0] not in names:
            renamed[found[0]] = name
    if not renamed:
        return saved
    out = {**saved, "columns": {renamed.get(k, k): v for k, v in declared.items()}}
    book = (saved.get("notes") or {}).get("codebook")
    if book and book.get("columns"):
        columns = {renamed.get(k, k): v for k, v in book["columns"].items()}
        out["notes"] = {**saved["notes"], "codebook": {**book, "columns": columns}}
    person = saved.get("person")
    if isinstance(person, dict) and person.get("column") in renamed:
        out["person"] = {**person, "column": renamed[person["column"]]}
    return out


def with_codebook(declaration: dict, offered: dict) -> dict:
    """The publisher's declaration with the codebook applied: a column the codebook gives value labels, or
    one the declaration leaves out, takes its starting declaration (to confirm: ``"confirmed": false``);
    any other column keeps its declaration (a range the codebook never states), its entry kept for its
    variable label and missing codes and confirmed as the publisher's; every other setting (the person
    column, missing values, the dataset's name) stays as it was."""
    book = offered["notes"]["codebook"]
    columns, entries = dict(declaration.get("columns") or {}), {}
    for name, entry in book["columns"].items():
        if name not in offered.get("columns", {}):
            continue
        takes = bool(entry.get("value_labels")) or name not in columns
        if takes:
            columns[name] = offered["columns"][name]
        entries[name] = {**entry, "confirmed": not takes}
    notes = {**(declaration.get("notes") or {}), "codebook": {**book, "columns": entries}}
    return {**declaration, "columns": columns, "notes": notes}


def unconfirmed_columns(notes: dict, kept) -> list[str]:
    """What is left to confirm: one problem per kept column started from the file's codebook whose entry
    in ``notes["codebook"]`` is not confirmed yet (``"confirmed": false``)."""
    entries = ((notes or {}).get("codebook") or {}).get("columns") or {}
    return [
        f"column '{name}': started from the file's codebook; check it against the documentation and confirm it "
        '(tick it on the Domain page, or change its "confirmed": false to true in the JSON, under notes, codebook, '
        "columns)"
        for name in kept
        if isinstance(entries.get(name), dict) and entries[name].get("confirmed") is False
    ]


def categories(labels: dict) -> dict:
    """A category list from a codebook's or a dictionary's ``code -> label`` (in its order), the labels kept when
    any differs from its code.

    >>> categories({"1": "Male", "2": "Female"})["labels"], categories({"N": "N"})
    ({'1': 'Male', '2': 'Female'}, {'type': 'categorical', 'values': ['N']})
    """
    spec = {"type": "categorical", "values": list(labels)}
    if any(label != code for code, label in labels.items()):
        spec["labels"] = dict(labels)
    return spec


def documented_number(text) -> int | float | None:
    """A bound a codebook or a dictionary writes, as a number (whole when it is one); None for anything else
    (``today``, a piped ``[field]``, ``1e400``, ``nan``: no public bound).

    >>> documented_number("120"), documented_number("2.5"), documented_number("today"), documented_number("1e400")
    (120, 2.5, None, None)
    """
    try:
        value = float(text or "")
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return int(value) if value == int(value) else value


def template_from_codebook(name: str, entry: dict) -> dict:
    """The starting declaration of one column from its codebook entry (see the module docstring)."""
    missing = {str(m) for m in entry.get("missing") or () if not isinstance(m, list)}
    labels = {str(code): str(label) for code, label in (entry.get("value_labels") or {}).items() if code not in missing}
    if labels:
        return categories(labels)
    named, storage, fmt = template_for(name), entry.get("storage"), str(entry.get("format") or "")
    if period := stata_period(fmt):  # months or quarters since 1960, read as the text of their month or quarter
        return {"type": "date", "written": period[1]}
    if named == {"type": "text"} and entry.get("label"):  # a name the rules do not know: its label's words may
        named = template_for(str(entry["label"]))  # (nlsw88's idcode, labelled "NLS ID": an identifier, dropped)
    if storage == "datetime" and named["type"] in ("text", "date"):  # the file says it keeps the time
        return {"type": "datetime"}
    if named.get("generator") == "digits" and storage == "number" and not shows_whole(entry.get("type"), fmt):
        named = {"type": "text"}  # a code of digits is whole: decimals say a number named after one (frac_..._zip)
    words = named["type"] == "categorical" and all(documented_number(v) is None for v in named["values"])
    if storage == "number" and words:  # a list of words on a column of numbers with no labels: codes (bdims' sex)
        named = {"type": "text"}
    if named != {"type": "text"}:
        return named
    if storage in ("date", "datetime", "time"):
        return {"type": storage}
    if storage == "number":
        if shows_whole(entry.get("type"), fmt):
            return {"type": "integer"}
        places = format_places(fmt)
        return {"type": "float"} | ({"decimals": places} if places else {})
    return named


def codebook_words(entry: dict) -> str:
    """What a column's declaration took from the file's codebook, in a few words (the Domain page's mark)."""
    parts = [f"label '{entry['label']}'"] if entry.get("label") else []
    if entry.get("value_labels"):
        parts.append(f"{len(entry['value_labels']):,} value labels")
    if entry.get("missing"):
        parts.append("missing codes " + ", ".join("-".join(m) if isinstance(m, list) else m for m in entry["missing"]))
    fmt = f" ({entry['format']})" if entry.get("format") else ""
    parts.append(f"stored as {entry.get('storage') or 'unknown'}{fmt}")
    return "; ".join(parts)
