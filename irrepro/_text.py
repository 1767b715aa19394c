"""Text helpers shared by the command line, the report and the book's pages (none imports another)."""

from __future__ import annotations

__all__ = ["slug", "few"]


def slug(text: str) -> str:
    """A file-name form of ``text``: letters and digits kept, everything else "-", lower case."""
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower()


def few(ids, limit: int = 5) -> str:
    """Up to ``limit`` ids, comma-separated, and ", ..." when there are more."""
    ids = [str(i) for i in ids]
    return ", ".join(ids[:limit]) + (", ..." if len(ids) > limit else "")
