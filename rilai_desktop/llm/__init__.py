"""Local models (docs/models.md): the implementations of the model port
(``contracts/llm.py``) and what it takes to have them.

``llama_cpp_adapter.py`` (LlamaCppModel: llama.cpp, grammar-constrained JSON through
``json_writer.py`` / ``json_plan.py`` / ``constrained.py``, the decode guard of
``decode_guard.py``), ``fake.py`` (ScriptedLLM and RoleModels for tests), ``router.py``
(role -> tier -> a loaded model), ``manifest.py`` (models.toml + the user's overlay),
``installer.py`` / ``download.py`` / ``gguf.py`` (models from registry packages, verified
by sha256), ``messages.py`` (chat messages in, reasoning split out).
"""
