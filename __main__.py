"""``python -m metricc``: the ``metricc`` command without the installed script."""

import sys

from metricc.cli import main

sys.exit(main())
