"""``python -m dpsynth_core``: the same command line as the ``dpsynth`` console script."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
