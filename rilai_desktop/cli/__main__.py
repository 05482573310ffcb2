"""`python -m rilai_desktop.cli` is `rilai`."""

import sys

from rilai_desktop.cli.main import main

sys.exit(main())
