"""The API's bearer token: one random secret in the config dir, readable by the owner only."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Final

from rilai_desktop.paths import make_private_dirs

TOKEN_FILE: Final[str] = "api-token"


def token_path(config_dir: Path) -> Path:
    return Path(config_dir) / TOKEN_FILE


def load_or_create_token(config_dir: Path) -> str:
    """The token in ``config_dir/api-token``; a new one (0600) when there is none."""
    path = token_path(config_dir)
    try:
        token = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        token = ""
    if len(token) >= 32:
        os.chmod(path, 0o600)
        return token
    make_private_dirs(path.parent)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(token + "\n")
    os.chmod(path, 0o600)
    return token
