"""What every figure shares: the known-truth tests' styles, names drawn literally, a new axes."""

from __future__ import annotations

import numpy as np

from .. import escape

__all__ = ["TEST_STYLE"]


#: One colour and marker per test of :data:`irrepro.known_truth.TESTS`, shared by the known-truth
#: figures (the markers keep them apart in grey scale).
TEST_STYLE = {
    "paired-t": ("C0", "o"),
    "wilcoxon": ("C1", "s"),
    "sign": ("C2", "^"),
    "bootstrap": ("C3", "D"),
    "bootstrap-shift": ("C5", "P"),
    "permutation": ("C4", "v"),
    "unpaired-bootstrap": ("C7", "x"),
}


def _name(name) -> str:
    """A run, topic, measure or collection name as a label: shortened beyond
    :data:`irrepro.escape.MAX_NAME` characters, drawn literally (:func:`irrepro.escape.mpl`)."""
    return escape.mpl(escape.shorten(name))


def _axes(ax, figsize):
    """``ax``, or the axes of a new figure of ``figsize``."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize)[1]


def _axes_row(axes, n: int, figsize, sharey: bool = False):
    """``axes`` as an array, or a row of ``n`` new axes in one figure of ``figsize`` (the y axis
    shared with ``sharey``): the figures drawn as panels side by side."""
    if axes is None:
        import matplotlib.pyplot as plt

        axes = plt.subplots(1, n, figsize=figsize, sharey=sharey)[1]
    return np.atleast_1d(axes)
