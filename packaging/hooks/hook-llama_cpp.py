"""llama-cpp-python loads libllama/libggml* with ctypes from llama_cpp/lib at import time;
PyInstaller cannot see a ctypes load, so the libraries are collected by hand, in place."""

from PyInstaller.utils.hooks import collect_dynamic_libs

binaries = collect_dynamic_libs("llama_cpp")
