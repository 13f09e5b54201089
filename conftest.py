# Doctests run over the whole package; the entry point is not a module to import.
collect_ignore = ["lablang/__main__.py"]
