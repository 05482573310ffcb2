"""`rilai self-test`: checks, without the network, that this installation works — its
libraries, models, embedder, stores, Qt and one whole turn (``runner.py``)."""

from rilai_desktop.app.self_test.report import CheckResult, SelfTestReport
from rilai_desktop.app.self_test.runner import Seams, run_self_test

__all__ = ["CheckResult", "Seams", "SelfTestReport", "run_self_test"]
