"""The `rilai` subcommands, one module each. Each takes parsed args and a Context."""
