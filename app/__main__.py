"""`python -m app` runs the same CLI as the `cann-config` console script."""

import sys

from app.cli import main

sys.exit(main())
