"""Robustness: tables and inputs nobody tuned on, through every door (the library, the command line, the app), hunted
for crashes, refusals longer than one line and released values outside the declaration."""
