"""The daemon (docs/daemon.md): tick, decay, nudges and maintenance between messages.

``service.Daemon`` decides what a tick does over the ports (``ports.py``);
``scheduler.DaemonScheduler`` runs it on APScheduler; ``decay`` is the pure maths;
``nudges/`` the nudge engine; ``maintenance`` the housekeeping pass. The adapters over the
real stores live beside ``app.py`` (``daemon_state.py``, ``daemon_facts.py``,
``daemon_maintenance.py``), which wires them in ``build_daemon``.
"""
