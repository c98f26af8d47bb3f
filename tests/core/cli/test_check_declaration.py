"""``check-declaration``: a table file against its declaration before a release, spending and recording nothing."""

from __future__ import annotations

import json

import pandas as pd

from dpsynth_core.cli import main
from tests.conftest import ROOT

SEATTLE = ROOT / "benchmarks" / "datasets"


def _european(folder):
    """NOAA's Seattle weather as a spreadsheet in much of Europe saves it: ';', dates day first, decimal commas."""
    lines = (SEATTLE / "seattle_weather.csv").read_text().splitlines()
    rows = [lines[0].replace(",", ";")]
    for line in lines[1:]:
        day, *numbers, weather = line.split(",")
        rows.append(";".join([f"{day[8:10]}.{day[5:7]}.{day[:4]}", *(n.replace(".", ",") for n in numbers), weather]))
    (folder / "wetter.csv").write_text("\n".join(rows) + "\n")
    return folder / "wetter.csv"


def test_a_declaration_that_does_not_say_the_files_forms_is_named_before_a_release(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(tmp_path / "ws"))
    data, spec = _european(tmp_path), json.loads((SEATTLE / "seattle_weather.domain.json").read_text())
    (tmp_path / "plain.json").write_text(json.dumps(spec))
    assert main(["check-declaration", str(data), "--domain", str(tmp_path / "plain.json")]) == 2
    out, err = capsys.readouterr()
    assert "- Column 'date': 1,461 of its 1,461 filled cells are not dates the release can read." in out
    assert out.count("- Column ") == 5 and "weather" not in out  # the four measurements and the date
    assert err.strip() == "error: 5 columns do not fit the declaration (above): check their declaration"
    assert "01.01.2012" not in out + err  # no value of the data
    spec["columns"]["date"]["written"] = "day first"
    for name in ("precipitation", "temp_max", "temp_min", "wind"):
        spec["columns"][name]["written"] = "decimal comma"
    (tmp_path / "said.json").write_text(json.dumps(spec))
    assert main(["check-declaration", str(data), "--domain", str(tmp_path / "said.json")]) == 0
    out = capsys.readouterr().out  # read with their decimal commas: readings to a tenth, whose places are not declared
    assert "- Column 'temp_max': all 1,461 of its numbers have at most 1 decimal place." in out
    assert "- Column 'temp_max' is at least 'temp_min' in all 1,461 rows that hold both." in out  # a day's high
    assert out.count("- Column ") == 5 and out.strip().endswith(
        "every column of wetter.csv fits its declaration (6 kept)"
    )
    for name in ("precipitation", "temp_max", "temp_min", "wind"):
        spec["columns"][name]["decimals"] = 1
    spec["columns"]["temp_max"]["derived"] = {"from": "temp_min", "gap": [0, 40]}
    (tmp_path / "said.json").write_text(json.dumps(spec))
    assert main(["check-declaration", str(data), "--domain", str(tmp_path / "said.json")]) == 0
    assert capsys.readouterr().out.strip() == "every column of wetter.csv fits its declaration (6 kept)"
    assert not (tmp_path / "ws").exists()  # nothing recorded: no workspace was even opened


def test_dates_with_a_time_of_day_are_named_and_the_check_passes(tmp_path, capsys):
    """An hourly file declared with a date column: the days are read (the check passes), and the note says the
    release keeps the day only and how to keep the hour."""
    frame_lines = (SEATTLE / "seattle_weather.csv").read_text().splitlines()
    rows = [frame_lines[0]] + [f"{line[:10]} {i % 24:02d}:30{line[10:]}" for i, line in enumerate(frame_lines[1:])]
    (tmp_path / "hourly.csv").write_text("\n".join(rows) + "\n")
    assert (
        main(
            [
                "check-declaration",
                str(tmp_path / "hourly.csv"),
                "--domain",
                str(SEATTLE / "seattle_weather.domain.json"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "- Column 'date': 1,461 of its 1,461 filled cells carry a time of day." in out
    assert (
        "declare the column as dates with a time of day" in out
        and "every column of hourly.csv fits its declaration" in out
    )


def test_a_file_most_of_whose_lines_are_broken_stops_the_check(tmp_path, capsys):
    """R's write.table writes no name for its row numbers: every line has one field more than the header, so every
    record would be a row of missing cells. The check says so, with the usual causes, and stops."""
    (tmp_path / "r.csv").write_text("age,city\n1,34,Oslo\n2,45,Rome\n")
    spec = {"columns": {"age": {"type": "integer", "min": 0, "max": 120}, "city": {"type": "drop"}}}
    (tmp_path / "r.json").write_text(json.dumps(spec))
    assert main(["check-declaration", str(tmp_path / "r.csv"), "--domain", str(tmp_path / "r.json")]) == 2
    out, err = capsys.readouterr()
    assert "2 of 2 lines could not be read as records" in out and "a row number at the start of each line" in out
    assert err.strip() == "error: most lines of r.csv could not be read as records (above): fix the file"


def test_cells_written_na_are_named_until_the_declaration_says_so(tmp_path, capsys, monkeypatch):
    """penguins writes NA for a missing value: its declaration says so and the check is quiet; without it the check
    names the spelling and the columns, says how to declare it, and passes (the cells are missing either way)."""
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(tmp_path / "ws"))
    spec = json.loads((SEATTLE / "penguins.domain.json").read_text())
    for name in ("bill_length_mm", "bill_depth_mm"):  # to a tenth of a millimetre, as the study gives them
        spec["columns"][name]["decimals"] = 1
    spec["columns"]["body_mass_g"]["multiple_of"] = 25  # weighed to 25 grams, as the study gives them
    data = str(SEATTLE / "penguins.csv")
    (tmp_path / "said.json").write_text(json.dumps(spec))
    assert main(["check-declaration", data, "--domain", str(tmp_path / "said.json")]) == 0
    assert capsys.readouterr().out.strip() == "every column of penguins.csv fits its declaration (8 kept)"
    (tmp_path / "unsaid.json").write_text(json.dumps({k: v for k, v in spec.items() if k != "missing_values"}))
    assert main(["check-declaration", data, "--domain", str(tmp_path / "unsaid.json")]) == 0
    out = capsys.readouterr().out
    assert "- 19 cells written 'NA' in 5 columns: 'bill_length_mm'," in out
    assert "Missing values are also written as" in out and out.strip().endswith("fits its declaration (8 kept)")


def test_shares_stored_as_fractions_in_a_percent_range_are_said_and_stop_nothing(tmp_path, capsys):
    lines = (SEATTLE / "seattle_weather.csv").read_text().splitlines()
    rows = [lines[0] + ",cloud"] + [f"{line},{(i % 97) / 100}" for i, line in enumerate(lines[1:])]
    (tmp_path / "w.csv").write_text("\n".join(rows) + "\n")
    spec = json.loads((SEATTLE / "seattle_weather.domain.json").read_text())
    spec["columns"]["cloud"] = {"type": "float", "min": 0, "max": 100}
    (tmp_path / "d.json").write_text(json.dumps(spec))
    assert main(["check-declaration", str(tmp_path / "w.csv"), "--domain", str(tmp_path / "d.json")]) == 0
    out = capsys.readouterr().out
    assert "shares stored as fractions, in a range declared in percent.\n- Column 'cloud': 1,445 of its" in out
    assert "declare the range as the file stores it, 0 to 1" in out and out.endswith("fits its declaration (7 kept)\n")


def test_a_range_the_file_does_not_hold_stops_the_check(tmp_path, capsys):
    """Seattle's wind declared in kilometres an hour, 0 to 2, where the file writes metres a second up to 9.5: most
    cells would be clamped to 2, and the check says so apart from the columns that would become missing, and exits
    2 so that a script stops before ``synth``; the documented range passes."""
    spec = json.loads((SEATTLE / "seattle_weather.domain.json").read_text())
    spec["columns"]["wind"].update({"min": 0, "max": 2})
    (tmp_path / "d.json").write_text(json.dumps(spec))
    data = SEATTLE / "seattle_weather.csv"
    assert main(["check-declaration", str(data), "--domain", str(tmp_path / "d.json")]) == 2
    out, err = capsys.readouterr()
    assert "a release would move most of these columns' cells to the ends of their declared range." in out
    assert "- Column 'wind': " in out and "filled cells lie outside the declared range." in out
    assert err.strip() == "error: 1 column does not fit the declaration (above): check its declaration"
    spec["columns"]["wind"].update({"min": 0, "max": 20})
    (tmp_path / "d.json").write_text(json.dumps(spec))
    assert main(["check-declaration", str(data), "--domain", str(tmp_path / "d.json")]) == 0


def test_missing_cells_in_a_column_declared_without_them_are_said_and_not_called_a_fit(tmp_path, capsys):
    """palmerpenguins writes 11 unknown sexes as NA; its sex declared without missing values (and NA a marker) would
    read them as 'female', the first category: the check says so, counts, and no longer says every column fits; a
    release notes them among the cells the rule changed."""
    spec = json.loads((SEATTLE / "penguins.domain.json").read_text())
    spec["columns"]["sex"]["missing"] = False
    (tmp_path / "required.json").write_text(json.dumps({**spec, "missing_values": {"markers": ["", "NA"]}}))
    data = str(SEATTLE / "penguins.csv")
    assert main(["check-declaration", data, "--domain", str(tmp_path / "required.json")]) == 0
    out = capsys.readouterr().out
    assert "missing cells in columns declared without missing values." in out
    assert "- Column 'sex': 11 of its 344 cells are missing, and it is declared without missing values." in out
    assert (
        out.strip().endswith("1 column holds cells the public rule changes (above)")
        and "fits its declaration" not in out
    )
    release = [data, "--domain", str(tmp_path / "required.json"), "--epsilon", "1", "--method", "cathist"]
    assert main(["synth", *release, "--out", str(tmp_path / "s.csv"), "--workspace", str(tmp_path / "ws")]) == 0
    err = capsys.readouterr().err  # after the draw, the same cells among those the rule changed
    assert "note: column 'sex': 11 missing cells read as its first value, as the column is declared without " in err
    assert "did not fit" not in err  # nothing else changed in that column: no list of the other rules


def test_a_column_with_cells_out_of_range_and_missing_where_none_are_declared_is_counted_once(tmp_path, capsys):
    """Penguins' body mass declared 0-5,000 g without missing values: 2 empty cells and the heavier birds out of range,
    both notes name the column, and the closing line counts it once."""
    spec = json.loads((SEATTLE / "penguins.domain.json").read_text())
    spec["columns"]["body_mass_g"] = {"type": "integer", "min": 0, "max": 5000, "missing": False}
    (tmp_path / "both.json").write_text(json.dumps({**spec, "missing_values": {"markers": ["", "NA"]}}))
    assert main(["check-declaration", str(SEATTLE / "penguins.csv"), "--domain", str(tmp_path / "both.json")]) == 0
    out = capsys.readouterr().out
    assert "- Column 'body_mass_g': 2 of its 344 cells are missing" in out
    assert [line for line in out.splitlines() if "'body_mass_g'" in line and "outside the declared range" in line]
    assert out.strip().endswith("1 column holds cells the public rule changes (above)")
    release = ["--domain", str(tmp_path / "both.json"), "--epsilon", "1", "--method", "cathist"]
    assert main(["synth", str(SEATTLE / "penguins.csv"), *release, "--out", str(tmp_path / "s.csv")]) == 0
    (note,) = [line for line in capsys.readouterr().err.splitlines() if "'body_mass_g'" in line]
    heavier = int((pd.read_csv(SEATTLE / "penguins.csv")["body_mass_g"] > 5000).sum())
    assert note.startswith(f"note: column 'body_mass_g': {heavier} cells did not fit the declaration and were ")
    assert note.endswith("; 2 missing cells read as its first value, as the column is declared without missing values")


def test_the_closing_line_counts_columns_in_the_plural(tmp_path, capsys):
    """Sex and body mass both declared without missing values: two columns, counted and worded as two."""
    spec = json.loads((SEATTLE / "penguins.domain.json").read_text())
    for name in ("sex", "body_mass_g"):
        spec["columns"][name]["missing"] = False
    (tmp_path / "two.json").write_text(json.dumps({**spec, "missing_values": {"markers": ["", "NA"]}}))
    assert main(["check-declaration", str(SEATTLE / "penguins.csv"), "--domain", str(tmp_path / "two.json")]) == 0
    assert capsys.readouterr().out.strip().endswith("2 columns hold cells the public rule changes (above)")
