"""flagcheck report, flagcheck lru and flagcheck catalogue: the report's
sections, its text, Markdown and CSV rendering, and the plots
(matplotlib)."""
