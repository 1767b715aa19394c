"""The equivalence margins of the book's one rule, one per kind of number, and the confidence of
its interval, from ``book/margins.yml``."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from scipy import stats

__all__ = ["KINDS", "Margins", "margins"]

#: The kinds of number a row compares; each has its equivalence margin in ``book/margins.yml``.
KINDS = ("rate", "correlation", "score", "count", "ordering", "claim")


@dataclass(frozen=True)
class Margins:
    """The equivalence margins per kind and the confidence of the rule's interval (``book/margins.yml``)."""

    confidence: float
    kinds: Mapping[str, Mapping]
    source: str = ""

    @property
    def z(self) -> float:
        """The normal quantile of the interval (1.645 at 0.90)."""
        return float(stats.norm.ppf(0.5 + self.confidence / 2))

    def margin(self, kind: str, value: float, scale: float = 1.0, nominal: float | None = None) -> float:
        """The absolute margin for a paper value ``value`` of ``kind`` (in the row's unit;
        ``scale`` 100 for a share printed in %); for a rate whose scale a ``nominal`` level sets
        (a fraction: alpha, or an interval's coverage), a share of the nearer of it and 1 - it."""
        if kind not in self.kinds:
            raise ValueError(f"kind {kind!r}: one of {sorted(self.kinds)} ({self.source})")
        e = self.kinds[kind]
        if nominal is not None:
            if e.get("relative_to_nominal") is None:
                raise ValueError(f"kind {kind!r} has no margin relative to a nominal level ({self.source})")
            nominal = float(nominal)
            if not 0 < nominal < 1:
                raise ValueError(f"nominal {nominal!r}: a level is a fraction in (0, 1)")
            return _FACTOR[0] * float(e["relative_to_nominal"]) * min(nominal, 1 - nominal) * scale
        v = abs(value) if math.isfinite(value) else 0.0
        out = []
        if e.get("absolute") is not None:
            out.append(float(e["absolute"]) * (scale if kind == "rate" else 1.0))
        if e.get("relative") is not None:
            out.append(float(e["relative"]) * v)
        if e.get("relative_to_edge") is not None:
            p = min(max(v / scale, 0.0), 1.0)
            out.append(float(e["relative_to_edge"]) * min(p, 1 - p) * scale)
        return _FACTOR[0] * (min(out) if out else 0.0)

    def to_frame(self):
        """One row per kind: what it is, its margin, why, and the source cited."""
        import pandas as pd

        def rule(e):
            parts = []
            if e.get("absolute") is not None:
                parts.append(f"{e['absolute']:g}" + (" (absolute)" if e.get("relative_to_edge") else ""))
            if e.get("relative") is not None:
                parts.append(f"{100 * e['relative']:g}% of the paper's value")
            if e.get("relative_to_edge") is not None:
                parts.append(f"{e['relative_to_edge']:g} x the distance to the nearer of 0 and 1")
            text = ("the smaller of " if len(parts) > 1 else "") + " and ".join(parts)
            if e.get("relative_to_nominal") is not None:
                text += (f"; a rate set by a nominal level (alpha, a coverage): {100 * e['relative_to_nominal']:g}% "
                         "of the nearer of that level and 1 - it")  # fmt: skip
            return text

        return pd.DataFrame(
            [{"kind": k, "what": e.get("what", ""), "margin": rule(e), "why": e.get("why", ""),
              "source": e.get("cite", "")} for k, e in self.kinds.items()]
        )  # fmt: skip


#: The factor every margin is multiplied by (1; :func:`scaled` halves or doubles it for the rule
#: page's sensitivity table).
_FACTOR = [1.0]


@contextlib.contextmanager
def scaled(factor: float):
    """Within the block, every margin of :func:`margins` times ``factor``."""
    old = _FACTOR[0]
    _FACTOR[0] = float(factor)
    try:
        yield
    finally:
        _FACTOR[0] = old


def _read_margins(path: str) -> Margins:
    import yaml

    doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    kinds = doc.get("kinds") if isinstance(doc, Mapping) else None
    if not isinstance(kinds, Mapping) or set(kinds) != set(KINDS):
        raise ValueError(f"{path}: 'kinds' must list exactly {KINDS}")
    conf = float(doc.get("confidence", 0.90))
    if not 0 < conf < 1:
        raise ValueError(f"{path}: confidence {conf} is not in (0, 1)")
    return Margins(conf, {k: dict(kinds[k]) for k in KINDS}, path)


def margins() -> Margins:
    """The rule's margins per kind, from ``book/margins.yml``.

    Returns
    -------
    Margins
        ``confidence`` (two-sided, of ours - paper), ``z``, ``kinds`` (kind -> its entry) and
        ``margin(kind, value, scale, nominal=None)``.

    Examples
    --------
    >>> from irrepro.book import margins
    >>> m = margins()
    >>> round(m.z, 3), m.margin("rate", 0.05), m.margin("rate", 0.5), m.margin("score", 0.2)
    (1.645, 0.02, 0.02, 0.010000000000000002)
    >>> m.margin("rate", 0.01)  # half the distance to 0
    0.005
    """
    from ._book_dir import read_book_file

    return read_book_file("margins.yml", _read_margins)
