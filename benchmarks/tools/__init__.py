"""Tools for the benchmarks: the large resampled tables, and seeded releases saved and compared byte for
byte with their CPU seconds."""
