"""Time and memory: every method's release, the single-pass methods against reading the file, the secure
path's generator, the empirical risk, and the app's pages in a real browser."""
