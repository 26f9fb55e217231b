"""flagcheck-report and flagcheck-lru: the report's sections, its text,
Markdown and CSV rendering, and the plots (matplotlib)."""
