"""The `rilai` subcommands, one module each (a large one split into siblings: memory_cmd with
memory_search, memory_kb and memory_checks). Each takes parsed args and a Context, and what
it needs from outside the process (pip, HTTP, the heavy library checks) as arguments."""
