"""Moved: the bootstrap samples, pairs and summaries are :mod:`irrepro.significance._samples`'s (the
tests of :mod:`irrepro.significance` use them); served here for the modules of this package."""

from ..significance._samples import (  # noqa: F401
    _as_matrix,
    _baseline_index,
    _check_pairs,
    _check_samples,
    _counts,
    _resolve_pairs,
    _Summary,
    _summary,
    all_pairs,
    baseline_pairs,
    bootstrap_samples,
    bootstrap_summaries,
    log_scores,
)

__all__ = ["bootstrap_samples", "all_pairs", "baseline_pairs", "log_scores", "bootstrap_summaries"]
