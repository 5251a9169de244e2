"""All file I/O: load + validate, fingerprints, locks, atomic writes."""
