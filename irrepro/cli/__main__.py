"""``python -m irrepro.cli``: the command line, as the ``irrepro`` script (:func:`irrepro.cli.main`)."""

import sys

from . import main

if __name__ == "__main__":  # not when a tool imports every module (tests/test_package.py)
    sys.exit(main())
