"""``marginals``' end bins that fall away from the data (:func:`dpsynth_core.synthesizers.marginals.measurements.
end_laws`, by :func:`dpsynth_core.data.decoding.end_tilts`): on a real table, post-processing that keeps every
record's bins and moves the values of a range's end bins toward the data."""

import copy
import math

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.data import decoding
from dpsynth_core.data.encoding import encode_column
from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer
from dpsynth_core.synthesizers.marginals.measurements import end_laws
from tests.conftest import complete_domain, shared_path


@pytest.fixture(scope="module")
def compas_codes():
    """compas at 1,000 rows with its counts and scores declared 0-100, as a publisher who knows they are codes but
    not which values occur."""
    frame = pd.read_csv(shared_path("compas.csv")).head(1000)
    spec = complete_domain("compas")
    for name, declared in spec["columns"].items():
        if declared.get("type") == "integer" and frame[name].min() >= 0 and frame[name].max() <= 100:
            spec["columns"][name] = {"type": "integer", "min": 0, "max": 100}
    return frame[list(spec["columns"])], spec


def test_end_bins_keep_their_records_and_draw_their_values_nearer_the_data(compas_codes, monkeypatch):
    """Six seeds: the same fitted model sampled with the rule and without it (the ablation) from the same random
    state draws every record's bins alike; inside the end bins the rule found whose law is more than gentle, values
    lie nearer the bin's inner edge (their mean distance from it, by the bin's width, summed over those bins)."""
    frame, spec = compas_codes
    near, far, found = 0.0, 0.0, 0
    for seed in range(6):
        model = MarginalsSynthesizer(epsilon=1.0, random_state=seed).fit(frame, spec)
        tilts = end_laws(model)
        twin = copy.deepcopy(model)
        tilted = model.sample(1000)
        monkeypatch.setattr(decoding, "TILTED_ENDS", False)
        flat = twin.sample(1000)
        monkeypatch.setattr(decoding, "TILTED_ENDS", True)
        for name, column in model.columns_.items():
            if column.domain.kind not in ("integer", "float"):
                continue  # categories have no bins to move in; dates are written as text (the unit tests)
            codes = encode_column(column.domain, tilted[name]).codes
            assert list(codes) == list(encode_column(column.domain, flat[name]).codes), name
            if column.domain.kind != "integer":
                continue  # (real numbers: the unit tests)
            lows, highs = column.domain.lows, column.domain.highs
            for end, share, outward in tilts[name]:
                width = highs[end] - lows[end] + 1  # each bin's mean distance from its inner edge, by its width
                if share == decoding.SCALE_FREE:  # its first value's share (decoding._scale_free_offsets)
                    share = math.log(2) / math.log(width + 1)
                if share * width < 3:
                    continue  # a gentle law, at most 3 times the bin's mean density at its first value
                found += 1
                edge = lows[end] if outward else highs[end]
                rows = np.asarray(codes) == end
                near += float(np.abs(pd.to_numeric(tilted[name][rows]) - edge).mean()) / width
                far += float(np.abs(pd.to_numeric(flat[name][rows]) - edge).mean()) / width
    assert found >= 2 and near < 0.6 * far, (found, near, far)  # 3 bins: 0.56 of their widths against 1.07, summed
