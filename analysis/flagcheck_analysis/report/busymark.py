"""A run's busy mark, as its manifest entry's "interference" recorded it
(measured by run/interference.py)."""


def is_busy(entry):
    """Whether a manifest run entry was marked busy."""
    return bool(((entry or {}).get("interference") or {}).get("busy"))
