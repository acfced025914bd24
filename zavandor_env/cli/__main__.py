"""``python -m zavandor_env.cli``: the ``zavandor`` command."""

import sys

from zavandor_env.cli import main

sys.exit(main())
