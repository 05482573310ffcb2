"""`python -m rilai_desktop` is the same as the `rilai` command."""

from rilai_desktop.cli import main

raise SystemExit(main())
