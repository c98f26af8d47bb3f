"""The benchmarks: measurements, not tests, each a module run from the repository's root folder as

    python -m benchmarks.GROUP.NAME [--help]

grouped by what they measure:

* :mod:`benchmarks.speed`: time and memory of the releases, in one process and in the app in a browser;
* :mod:`benchmarks.large`: counting and whole releases on tables of tens of millions of rows, per engine;
* :mod:`benchmarks.quality`: how close the synthetic tables come to the real ones (marginals, tails, missing
  cells, free text, the papers' evaluations);
* :mod:`benchmarks.peers`: the default method against AIM and MST of mbi, SmartNoise and OpenDP, which run in
  their own environments (``requirements-bench*.txt``);
* :mod:`benchmarks.tools`: the large tables they read, and seeded releases compared byte for byte.

What they share is in :mod:`benchmarks.common`. Each module's docstring says what it measures, how to run
it and how long it takes; the figures, with the conditions they were measured under, are in
``docs/benchmarks/``.
"""
