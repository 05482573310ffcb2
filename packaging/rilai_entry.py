"""The frozen bundle's entry point: the same `rilai` command as the console script."""

import multiprocessing
import sys

from rilai_desktop.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
