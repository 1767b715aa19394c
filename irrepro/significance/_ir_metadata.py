"""The ir_metadata fields (schema v0.1, PRIMAD; https://www.ir-metadata.org) of the methods sidecar,
and the versions of the software the numbers depend on.
"""

from __future__ import annotations

import os
import platform
import sys

from ..errors import REPOSITORY_URL
from ._names import FAMILY_WISE, TESTS


def _versions() -> dict[str, str]:
    """The versions of the software the numbers depend on."""
    import numpy
    import pandas
    import scipy
    import statsmodels  # (the corrections: multipletests)

    from .. import __version__

    return {"irrepro": __version__, "numpy": numpy.__version__, "scipy": scipy.__version__,
            "pandas": pandas.__version__, "statsmodels": statsmodels.__version__,
            "python": platform.python_version()}  # fmt: skip


def _metadata(*, names, reported, test, corrections, versions, command, qrels, baseline, **settings) -> dict:
    """The settings in ir_metadata's (v0.1) fields, and the rest under ``irrepro``."""
    libraries = [f"{k}=={v}" for k, v in versions.items() if k != "python"]
    methods = ["none (family-wise by itself)"] if test == FAMILY_WISE else corrections
    significance = [{"name": TESTS[test], "correction method": c} for c in methods]
    return {
        "schema-version": "0.1",
        "platform": {
            "hardware": {"cpu": {"architecture": platform.machine(), "number of cores": os.cpu_count() or 1}},
            "operating system": {
                "kernel": f"{platform.system()} {platform.release()}".strip(),
                "distribution": _distribution(),
            },  # fmt: skip
            "software": {"libraries": {"python": [f"python=={versions['python']}", *libraries]}},
        },
        "implementation": {
            **({"executable": {"cmd": command}} if command else {}),
            "source": {"lang": ["python"], "repository": REPOSITORY_URL},
        },
        "research goal": {
            "evaluation": {
                "reported measures": reported,
                **({"baseline": [baseline]} if baseline is not None else {}),
                "significance test": significance,
            }
        },
        "data": {"test collection": {"qrels": qrels}} if qrels else {},
        "irrepro": {
            "measures": names,
            "test": test,
            "corrections": corrections,
            **settings,
            "python": sys.version.split()[0],
        },  # fmt: skip
    }


def _distribution() -> str:
    try:
        info = platform.freedesktop_os_release()
        return info.get("PRETTY_NAME") or info.get("NAME", "")
    except (OSError, AttributeError):
        return platform.platform()
