"""The names the docstrings' examples share (pytest's ``doctest_namespace``): ``np`` and ``scores``,
a toy score matrix of 3 systems x 5 topics; ``scores_b``, a second matrix of 4 systems x 5 topics
(the same topics under another measure) for the examples that compare two."""

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    """Put ``np``, ``scores`` and ``scores_b`` into the doctests' namespace."""
    doctest_namespace["np"] = np
    doctest_namespace["scores"] = np.array(
        [[0.5, 0.6, 0.7, 0.4, 0.9], [0.4, 0.5, 0.5, 0.4, 0.6], [0.5, 0.6, 0.6, 0.5, 0.8]]
    )
    doctest_namespace["scores_b"] = np.array(
        [
            [0.6, 0.5, 0.6, 0.4, 0.7],
            [0.5, 0.4, 0.5, 0.5, 0.5],
            [0.4, 0.5, 0.6, 0.5, 0.8],
            [0.3, 0.6, 0.4, 0.5, 0.6],
        ]
    )
