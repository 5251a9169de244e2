"""Renderings of result documents for people: Markdown (written beside each JSON report) and plain text
(the terminal). Renderers only read models; they never compute a statistic."""
