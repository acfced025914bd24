"""``python -m zavandor_env.codegen``: see :mod:`zavandor_env.codegen`."""

import sys

from zavandor_env.codegen import main

sys.exit(main())
