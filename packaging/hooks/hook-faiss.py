"""faiss-cpu: the SWIG module plus the vendored OpenBLAS/libgomp in faiss_cpu.libs."""

from PyInstaller.utils.hooks import collect_dynamic_libs, collect_submodules

binaries = collect_dynamic_libs("faiss")
hiddenimports = collect_submodules("faiss", filter=lambda name: "contrib" not in name)
