"""``python -m zavandor_env.cli``: the ``zavandor`` command."""

import sys

from . import main

sys.exit(main())
