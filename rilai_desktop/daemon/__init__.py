"""The daemon (docs/daemon.md): tick, decay, nudges and maintenance between messages.

``service.Daemon`` decides what a tick does over the ports (``ports.py``, and the shared
``contracts.EventSink`` / ``contracts.clock.Clock``); ``jobs.DaemonScheduler`` runs its
jobs on APScheduler; ``decay`` is the pure maths; ``nudges/`` the nudge engine;
``maintenance`` the housekeeping pass; ``delivery`` shows a nudge. The adapters over the
real stores live in ``app/`` (``daemon_state.py``, ``nudge_facts.py``,
``maintenance_tasks.py``), and ``app/build.py`` wires them in ``build_daemon``.
"""
