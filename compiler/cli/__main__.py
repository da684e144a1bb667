"""``python -m metricc.compiler.cli``: the ``metricc`` command without the installed script."""

import sys

from metricc.compiler.cli import main

sys.exit(main())
