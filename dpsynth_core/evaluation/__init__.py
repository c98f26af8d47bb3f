"""Measuring a release: metrics, charts, k-anonymity, and the DP stakeholder report."""
