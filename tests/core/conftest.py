"""Fixtures shared by the core's tests of more than one package."""

from __future__ import annotations

import pytest

from tests.corpus import every_form


@pytest.fixture
def record_forms(tmp_path):
    """The same 300 records in every form the ledger must recognise (:func:`tests.corpus.every_form`)."""
    every_form(tmp_path)
    return tmp_path
