"""Text helpers shared by the report and the book's pages (neither imports the other)."""

from __future__ import annotations

__all__ = ["slug"]


def slug(text: str) -> str:
    """A file-name form of ``text``: letters and digits kept, everything else "-", lower case."""
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower()
