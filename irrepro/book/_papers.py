"""The papers' numbers as data (``book/papers/<bibkey>.yml``), and the book's chapters."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from .._rule import PaperValue, book_dir, read_book_file

#: The book's chapters, in reading order: (citation key, title).
PAPERS = (
    ("cormack2006statistical", "Cormack & Lynam 2006"),
    ("sanderson2005information", "Sanderson & Zobel 2005"),
    ("sakai2006evaluating", "Sakai 2006"),
    ("webber2008score", "Webber, Moffat & Zobel 2008"),
)

#: Chapters beyond the papers (no ReScience label), in reading order: (the study's citation key, title).
STUDIES = (
    ("urbano2019statistical", "Against a known truth (beside Urbano, Lima & Hanjalic 2019)"),
    ("parapar2021testing", "Which test? (beside Parapar, Losada & Barreiro 2021)"),
    ("otero2025towards", "Which test? (beside Otero, Parapar & Barreiro 2025)"),
    ("ihemelandu2023inference", "Which test? (beside Ihemelandu & Ekstrand 2023)"),
    ("sakai2016topic", "Planning an evaluation (beside Sakai 2016)"),
)


class PaperNumbers(Mapping):
    """The numbers of one paper, from ``book/papers/<bibkey>.yml``: ``numbers[key]`` is a ``PaperValue``."""

    _FIELDS = ("table", "row", "column", "value", "section", "wording")

    def __init__(
        self,
        paper: str,
        entries: Mapping[str, Mapping],
        source: str = "",
        names: Mapping[str, str] | None = None,
        headline: Mapping[str, str] | None = None,
    ):
        self.paper = paper
        self.source = source
        #: the chapter's question, central claim (a Verdict row's quantity), paper's data and page
        self.headline = {str(k): str(v) for k, v in (headline or {}).items()}
        missing = {"chapter", "question", "claim", "data"} - set(self.headline) if headline else set()
        if missing or set(self.headline) - {"chapter", "question", "claim", "data", "summary", "beside"}:
            raise ValueError(
                f"{source or paper}: headline needs chapter, question, claim and data (and may have summary, and for a study beside)"
            )
        #: the paper's names of measures, runs, ... mapped to ours (``"AveP": "AP"``)
        self.names = dict(names or {})
        self._values = {}
        for key, e in entries.items():
            unknown = set(e) - set(self._FIELDS)
            if unknown or "value" not in e or "section" not in e or "table" not in e:
                raise ValueError(
                    f"{source or paper}: entry {key!r} needs table, value and section "
                    f"(and may have row, column, wording){'; unknown ' + str(sorted(unknown)) if unknown else ''}"
                )
            self._values[str(key)] = PaperValue(
                paper,
                str(key),
                e["value"],
                **{k: "" if e.get(k) is None else str(e[k]) for k in self._FIELDS if k != "value"},
            )

    def __getitem__(self, key: str) -> PaperValue:
        try:
            return self._values[key]
        except KeyError:
            near = [k for k in self._values if k.split(".")[0] == key.split(".")[0]]
            raise KeyError(
                f"{self.source or self.paper} has no {key!r}"
                + (f" (entries of that table: {', '.join(near)})" if near else "")
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def where(self, ref: str) -> str:
        """Where the paper prints the value of a row's ``paper_ref`` (a key, ``"key[1]"`` or ``"a+b"``)."""
        keys = dict.fromkeys(re.sub(r"\[\d+\]$", "", k) for k in ref.split("+"))
        return "; ".join(self[k].where for k in keys)

    def keys_of(self, refs) -> set[str]:
        """The entries that ``paper_ref`` values name (parts and joins resolved to their keys)."""
        return {re.sub(r"\[\d+\]$", "", k) for ref in refs if ref for k in str(ref).split("+")}


class _Printed:
    """A number read from a paper's yml with the text it was typed with (``0.60`` keeps its trailing zero)."""

    printed: str

    def __new__(cls, value, printed: str):
        obj = super().__new__(cls, value)  # type: ignore[call-arg]
        obj.printed = printed
        return obj

    def __reduce__(self):
        number = type(self).__bases__[1]  # float or int
        return (type(self), (number(self), self.printed))


class PrintedFloat(_Printed, float):
    """A float with its printed text (:class:`_Printed`)."""


class PrintedInt(_Printed, int):
    """An integer with its printed text (:class:`_Printed`)."""


def _loader():
    """A YAML loader that keeps each number's printed text."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def as_float(loader, node):
        return PrintedFloat(yaml.SafeLoader.construct_yaml_float(loader, node), node.value)

    def as_int(loader, node):
        return PrintedInt(yaml.SafeLoader.construct_yaml_int(loader, node), node.value)

    Loader.add_constructor("tag:yaml.org,2002:float", as_float)
    Loader.add_constructor("tag:yaml.org,2002:int", as_int)
    return Loader


def _read_numbers(path: str) -> PaperNumbers:
    """The numbers of one paper's yml file, checked."""
    import yaml

    doc = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_loader())
    if not isinstance(doc, Mapping) or not isinstance(doc.get("numbers"), Mapping):
        raise ValueError(
            f"{path}: expected 'paper' and a mapping 'numbers: {{key: {{table, row, column, value, section}}}}'"
        )
    paper = Path(path).stem
    if doc.get("paper") != paper:
        raise ValueError(f"{path}: 'paper' is {doc.get('paper')!r}, the file name says {paper!r}")
    return PaperNumbers(
        paper, doc["numbers"], source=path, names=doc.get("names"), headline=doc.get("headline")
    )


def paper_numbers(paper: str) -> PaperNumbers:
    """The numbers a chapter prints as the paper's, from ``book/papers/<paper>.yml``.

    Parameters
    ----------
    paper : str
        A citation key of ``book/references.bib``.

    Returns
    -------
    PaperNumbers
        ``numbers[key]`` is a ``PaperValue``.

    Examples
    --------
    >>> from irrepro.book import paper_numbers
    >>> numbers = paper_numbers("cormack2006statistical")
    >>> numbers.paper
    'cormack2006statistical'
    """
    path = book_dir() / "papers" / f"{paper}.yml"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no numbers recorded for {paper!r}")
    return read_book_file(f"papers/{paper}.yml", _read_numbers)
