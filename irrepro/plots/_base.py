"""What every figure shares: one style, its palette, legends outside the data, names drawn literally,
axes at the book's content width."""

from __future__ import annotations

import contextlib
import functools

import numpy as np

from .. import escape

#: The book's content column in CSS pixels (sphinx-book-theme's in a 1280 px window: 730-800 px).
CONTENT_PX = 730
#: The dots per inch figures are made and saved at (the inline backend saves at the figure's dpi).
DPI = 100
#: A full-column figure's width in inches, less the 0.1 inch the inline backend pads either side with.
WIDTH = CONTENT_PX / DPI - 0.2
#: Okabe & Ito's colour-blind-safe palette (yellow last, as it is faint on white).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
#: The grey of reference data (e.g. the data a fitted curve is drawn against).
GREY = "0.6"
#: The rc settings of every figure (applied by :func:`styled`, never globally).
STYLE = {
    "figure.dpi": DPI,
    "savefig.dpi": "figure",
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.title_fontsize": 9,
    "figure.titlesize": 11,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
}

#: One colour and marker per test of the known-truth figures (the markers keep them apart in grey).
TEST_STYLE = {
    "paired-t": (PALETTE[0], "o"),
    "wilcoxon": (PALETTE[1], "s"),
    "sign": (PALETTE[2], "^"),
    "bootstrap": (PALETTE[3], "D"),
    "bootstrap-shift": (PALETTE[4], "P"),
    "permutation": (PALETTE[5], "v"),
    "unpaired-bootstrap": (PALETTE[6], "x"),
}


@contextlib.contextmanager
def _rc():
    """:data:`STYLE`, with the palette as the colour cycle, for the time of a ``with`` block."""
    # not matplotlib.rc_context: restoring every setting would undo the inline backend's interactive mode
    import matplotlib as mpl
    from cycler import cycler

    style = {**STYLE, "axes.prop_cycle": cycler(color=list(PALETTE))}
    old = {k: mpl.rcParams[k] for k in style}
    mpl.rcParams.update(style)
    try:
        yield
    finally:
        mpl.rcParams.update(old)


def styled(fn):
    """The decorator of every public plot: ``fn`` drawn in :data:`STYLE`, settings restored after."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with _rc():
            return fn(*args, **kwargs)

    return wrapper


def series_colors(names, ordered: bool = False) -> dict:
    """A distinct, colour-blind-safe colour per series name (``viridis`` for ordered or many series).

    Parameters
    ----------
    names : iterable
        The series, in drawing order.
    ordered : bool
        The series are ordered (bins, sizes).

    Returns
    -------
    dict
        Name -> colour.
    """
    names = list(names)
    if not ordered and len(names) <= len(PALETTE):
        return dict(zip(names, PALETTE))
    import matplotlib as mpl

    cmap = mpl.colormaps["viridis"]
    return {n: mpl.colors.to_hex(cmap(x)) for n, x in zip(names, np.linspace(0, 0.9, max(len(names), 1)))}


def panels(nrows: int = 1, ncols: int = 1, *, height: float = 3.2, **subplots):
    """A new figure of panels at the width of the book's column, in the book's style.

    Parameters
    ----------
    nrows, ncols : int
        The grid of axes.
    height : float
        Inches per row.
    **subplots
        Passed to ``matplotlib.pyplot.subplots`` (``sharey``, ``squeeze``, ...).

    Returns
    -------
    tuple
        (figure, axes) as ``matplotlib.pyplot.subplots`` returns them.
    """
    import matplotlib.pyplot as plt

    with _rc():
        return plt.subplots(nrows, ncols, figsize=(WIDTH, height * nrows), layout="constrained", **subplots)


def _legend(ax, *, below: float | None = None, **kwargs):
    """``ax``'s legend outside its data, without a frame."""
    kwargs.setdefault("borderaxespad", 0.0)
    if below is None:
        kwargs.setdefault("loc", "upper left")
        kwargs.setdefault("bbox_to_anchor", (1.02, 1.0))
        return ax.legend(**kwargs)
    from matplotlib.transforms import ScaledTranslation

    down = ScaledTranslation(0, -below / 72, ax.figure.dpi_scale_trans)
    kwargs.setdefault("loc", "upper center")
    return ax.legend(bbox_to_anchor=(0.5, 0.0), bbox_transform=ax.transAxes + down, **kwargs)


def _name(name) -> str:
    """A run, topic, measure or collection name as a label."""
    return escape.mpl(escape.shorten(name))


def _names(names) -> list[str]:
    """The labels of several series or ticks of one figure."""
    return [escape.mpl(s) for s in escape.short_names(names)]


def _axes(ax, figsize):
    """``ax``, or the axes of a new figure of ``figsize`` (at most :data:`WIDTH` inches wide)."""
    return ax if ax is not None else _axes_row(None, 1, figsize)[0]


def _axes_row(axes, n: int, figsize, sharey: bool = False, vertical: bool = False):
    """``axes`` as an array, or a row (``vertical``: a column) of ``n`` new axes in one figure."""
    if axes is None:
        import matplotlib.pyplot as plt

        grid = (n, 1) if vertical else (1, n)
        axes = plt.subplots(
            *grid, figsize=(min(figsize[0], WIDTH), figsize[1]), sharey=sharey, layout="constrained"
        )[1]
    return np.atleast_1d(axes)
