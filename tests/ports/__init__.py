"""Port contract suites: one per port, run against every implementation, fakes included.

A fake that passes the same suite as the real adapter is a fake callers may trust.
"""
