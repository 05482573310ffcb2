"""Model errors: each names the file or limit and the fix."""

from __future__ import annotations

from rilai_desktop.errors import RilaiError


class ModelError(RilaiError):
    code = "RIL-020"
    name = "ModelError"
    recovery_suggestions = ["Run `rilai models verify` and `rilai doctor`"]


class ModelFileMissingError(ModelError):
    code = "RIL-021"
    name = "ModelFileMissingError"


class ModelFileCorruptError(ModelError):
    code = "RIL-022"
    name = "ModelFileCorruptError"


class ChecksumMismatchError(ModelError):
    code = "RIL-023"
    name = "ChecksumMismatchError"


class NoChatTemplateError(ModelError):
    code = "RIL-024"
    name = "NoChatTemplateError"


class PromptTooLongError(ModelError):
    code = "RIL-025"
    name = "PromptTooLongError"


class BadRequestError(ModelError):
    code = "RIL-026"
    name = "BadRequestError"


class ModelCallError(ModelError):
    code = "RIL-027"
    name = "ModelCallError"


class ModelTimeoutError(ModelCallError):
    code = "RIL-028"
    name = "ModelTimeoutError"


class ManifestError(ModelError):
    code = "RIL-029"
    name = "ManifestError"
    recovery_suggestions = ["Check models/models.toml (and your overrides in the config dir)"]


class InstallError(ModelError):
    code = "RIL-030"
    name = "InstallError"
