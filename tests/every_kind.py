"""Small fixed tables with a column of every kind, and their released form (shared by several tests)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsynth_core.data.decoding import decode_codes
from dpsynth_core.data.encoding import encode_column
from dpsynth_core.domain import TableDomain
from dpsynth_core.privacy.noise import make_noise_source

ROWS = 600

#: One column of every kind (and the text generators), most with missing cells.
DOMAIN = {
    "missing_values": {"markers": ["", "?"]},
    "columns": {
        "colour": {"type": "categorical", "values": ["red", "green", "other"], "other": "other"},
        "code": {"type": "categorical", "values": [1, 2, 3]},
        "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10, "special": [0]},
        "gain": {"type": "integer", "min": 0, "max": 99999, "bin_width": 5000},
        "score": {"type": "float", "min": 0.0, "max": 1.0, "bins": 4, "special": [0.5]},
        "day": {"type": "date", "min": "2020-01-01", "max": "2020-12-31", "unit": "month"},
        "name": {"type": "text", "generator": "any", "size": 50},
        "word": {"type": "text", "generator": "english_word"},
        "pair": {"type": "text", "generator": "word_pair"},
        "tag": {"type": "text", "generator": "letters", "max_length": 3},
        "zip": {"type": "text", "generator": "digits", "length": 5},
        "flag": {"type": "categorical", "values": ["yes", "no"], "missing": False},
    },
}


def real_table(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)

    def pick(values):
        return rng.choice(np.asarray(values, dtype=object), ROWS)

    days = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 366, ROWS), unit="D")
    return pd.DataFrame(
        {
            "colour": pick(["red", "green", "blue", "", "?"]),
            "code": pick(["1", "2", "3", "3.0", ""]),
            "age": pick(["0", "17", "45", "45.4", "120", "", "x"]),
            "gain": pick(["0", "0", "0", "2174", "15024", ""]),
            "score": pick(["0.5", "0.1", "0.93", "2", ""]),
            "day": np.where(rng.random(ROWS) < 0.1, "", days.strftime("%Y-%m-%d").to_numpy(dtype=object)),
            "name": pick(["Ann Smith", "Bo Li", "Cy Young", "Dee Dee", "", "value-07"]),
            "word": pick(["Apple", "house", "zzqx", ""]),
            "pair": pick(["Apple  house", "red car", "one", ""]),
            "tag": pick(["ab", "xyz", "toolong", ""]),
            "zip": pick(["02139", "10001", "123", ""]),
            "flag": np.where(rng.random(ROWS) < 0.98, "yes", "no"),  # a share near 1
        }
    )


def released_form(frame: pd.DataFrame, spec: dict, seed: int = 1) -> pd.DataFrame:
    """The records of ``frame`` as a release writes them (values drawn inside their bins, labels)."""
    domain = TableDomain.from_json(spec)
    noise = make_noise_source(np.random.default_rng(seed))
    out = {}
    for name, column in domain.kept.items():
        encoded = encode_column(column, frame[name], domain.missing_markers)
        out[name] = (
            pd.Series(encoded.labels, dtype=object) if not column.binned else decode_codes(column, encoded.codes, noise)
        )
    return pd.DataFrame(out).sample(frac=1, random_state=seed).reset_index(drop=True)
