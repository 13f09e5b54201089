"""Agents that answer in `.lab`: a persistent checker (`serve`) and the benchmark harness
(`bench`), both built from the library's own check, fix, export and score functions."""
