"""Evaluations of the whole product on scripted data (``rilai eval ...``, docs/eval.md)."""
