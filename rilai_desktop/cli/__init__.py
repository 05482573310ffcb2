"""The command-line client: `rilai` (argument parsing and error reporting in ``main``),
one module per subcommand in ``commands/``, ``rilai bench`` in ``bench/`` and the
evaluations behind ``rilai eval`` in ``evaluation/``.

Clients sit on top: they hold what ``rilai_desktop.app`` builds and never wire the engine
packages themselves.
"""

from rilai_desktop.cli.main import dispatch, main
from rilai_desktop.cli.parser import build_parser

__all__ = ["build_parser", "dispatch", "main"]
