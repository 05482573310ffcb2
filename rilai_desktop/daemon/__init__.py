"""The APScheduler daemon: tick, decay, nudges, maintenance.

Empty until the daemon issue lands.
"""
