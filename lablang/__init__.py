"""lablang: a declarative language for laboratory science and its benchmarks."""

__version__ = "0.1.0"
