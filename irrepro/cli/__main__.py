"""``python -m irrepro.cli``: the command line, as the ``irrepro`` script (:func:`irrepro.cli.main`)."""

import sys

from . import main

sys.exit(main())
