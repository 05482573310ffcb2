"""The frozen bundle's entry point: the same `rilai` command as the console script.

Before anything imports llama_cpp, the llama.cpp build this CPU runs best is chosen from
those the bundle carries (rilai_desktop/llm/cpu_level.py; packaging/llama_variants.py).
"""

import multiprocessing
import os
import sys
from pathlib import Path

from rilai_desktop.llm.cpu_level import choose_llama_libs

if __name__ == "__main__":
    multiprocessing.freeze_support()
    choose_llama_libs(Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent)), os.environ)
    from rilai_desktop.cli import main

    sys.exit(main())
