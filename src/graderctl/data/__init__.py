"""Data files shipped with graderctl (read with importlib.resources)."""
