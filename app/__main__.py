"""`python -m cann_config.app` runs the same CLI as the `cann-config` console script."""

import sys

from cann_config.app.cli import main

sys.exit(main())
