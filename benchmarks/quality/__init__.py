"""Accuracy: how close the synthetic tables come to the real ones (marginal distances, out-of-range rows,
missing cells, free text, the papers' evaluations), and the ablation behind the default method's settings."""
