"""sentence-transformers reads its own package metadata and imports model modules by name
(``importlib.import_module`` on the strings in a model folder's modules.json)."""

from PyInstaller.utils.hooks import collect_submodules, copy_metadata

hiddenimports = collect_submodules(
    "sentence_transformers",
    filter=lambda name: ".evaluation" not in name and ".trainer" not in name,
)
datas = copy_metadata("sentence-transformers")
