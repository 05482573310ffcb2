"""`rilai window` (and `rilai` with a display): the desktop app over this Context's Engine.

The window (``rilai_desktop.ui``) is shown before any model is loaded; the Engine opens on a
helper thread (``ui.app.EngineLoader``). The CLI is the layer above ui/: it hands the
window a way to open the Engine, and ui/ never wires the engine itself.
"""

from __future__ import annotations

import argparse

from rilai_desktop.cli.commands._context import Context


def run(args: argparse.Namespace, ctx: Context) -> int:
    if getattr(args, "exit_after_first_paint", False):  # a measurement: the real window
        return open_window(ctx, exit_after_first_paint=True)
    return ctx.builders.window(ctx)


def open_window(ctx: Context, *, exit_after_first_paint: bool = False) -> int:
    from rilai_desktop.app.app_identity import claim_app_user_model_id
    from rilai_desktop.app.engine import Engine
    from rilai_desktop.app.models_setup import ModelsSetup
    from rilai_desktop.ui.app import run_window

    # Windows: before any window, so the taskbar and notifications name Rilai (a no-op elsewhere)
    claim_app_user_model_id()

    def open_engine() -> Engine:
        return ctx.engine()

    return run_window(
        open_engine,
        theme=ctx.loaded.settings.ui.theme,
        data_dir=ctx.paths.data_dir,
        models=ModelsSetup.for_paths(ctx.paths),  # missing models are offered first
        exit_after_first_paint=exit_after_first_paint,
    )
