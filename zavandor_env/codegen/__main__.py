"""``python -m zavandor_env.codegen``: see :mod:`zavandor_env.codegen`."""

import sys

from . import main

sys.exit(main())
