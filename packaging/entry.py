"""The frozen bundle's entry point: the same `app.cli:main` as the `cann-config` console script.

PyInstaller needs a script, not an entry-point name; this is that script and nothing more.
"""

import sys

from cann_config.app.cli import main

if __name__ == "__main__":
    sys.exit(main())
