"""JAX's persistent compilation cache, turned on by :func:`jaxlearn.enable_compilation_cache`.

A learner's first call compiles its programs (seconds on a small CPU); a fresh Python process (a new
notebook kernel, a script run again) compiles them again. JAX can keep compiled programs on disk and
read them back instead (its *persistent compilation cache*), but only once a cache directory is
configured. Importing jaxlearn changes nothing in JAX's configuration; the cache is turned on by

- calling ``jaxlearn.enable_compilation_cache()`` (or ``enable_compilation_cache("/some/path")``) first
  thing in a notebook or script; or
- setting ``JAXLEARN_COMPILATION_CACHE=1`` (the default directory) or ``=/some/path`` in the
  environment, which ``import jaxlearn`` reads: the opt-in for code you cannot edit.

The default directory is ``$XDG_CACHE_HOME/jaxlearn/jax-<jax version>``, or
``~/.cache/jaxlearn/jax-<jax version>`` without ``XDG_CACHE_HOME``; ``JAXLEARN_COMPILATION_CACHE=0``
(or ``off``, ``false``, ``no``) keeps the cache off even when the function is called.

A cache the user configured for JAX itself (``JAX_COMPILATION_CACHE_DIR``, or
``jax.config.update("jax_compilation_cache_dir", ...)``) is left as it is unless a directory is passed,
and so is ``jax_enable_compilation_cache=False``. Every program is kept, however fast it compiled
(:data:`MIN_COMPILE_SECONDS`): a first call compiles many small programs, which JAX's own threshold
(1 s) would all leave out, unless the user set ``jax_persistent_cache_min_compile_time_secs``. A
directory that cannot be created or written never raises: the cache stays off, with a warning.
Entries are keyed by the program, the jax/jaxlib version, the device and the compile options, so a
stale entry is never used; deleting the directory is always safe.

The cache is bounded: when it is enabled with its entries above :data:`MAX_SIZE_BYTES` (1 GiB), the
least recently used ones are deleted, down to three quarters of the bound (:func:`prune`).
``JAXLEARN_COMPILATION_CACHE_MAX_SIZE`` sets another bound (bytes, or with a ``K``, ``M`` or ``G``
suffix: ``500M``; ``-1`` for none). JAX's own ``jax_compilation_cache_max_size`` is not used: it scans
the whole directory at every write, which a first call compiling tens of programs would pay each time.

Examples:
    >>> import os
    >>> from jaxlearn._compilation_cache import cache_directory
    >>> cache_directory({"JAXLEARN_COMPILATION_CACHE": "0"}) is None
    True
    >>> cache_directory({"JAXLEARN_COMPILATION_CACHE": "/tmp/my-cache"})
    '/tmp/my-cache'
    >>> path = cache_directory({"XDG_CACHE_HOME": "/tmp/xdg"})
    >>> path.startswith(os.path.join("/tmp/xdg", "jaxlearn", "jax-"))
    True
    >>> from jaxlearn._compilation_cache import max_size
    >>> max_size({}), max_size({"JAXLEARN_COMPILATION_CACHE_MAX_SIZE": "500M"})
    (1073741824, 524288000)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import warnings
from collections.abc import Mapping
from typing import Optional

import jax

#: The environment variable that turns the cache off (``0``) or names its directory.
ENV_VAR = "JAXLEARN_COMPILATION_CACHE"
#: Programs that took at least this long to compile are written to the cache (0: every program).
MIN_COMPILE_SECONDS = 0.0
#: The environment variable that bounds the cache's size.
SIZE_ENV_VAR = "JAXLEARN_COMPILATION_CACHE_MAX_SIZE"
#: The default bound on the cache's size: past it, the least recently used entries are deleted.
MAX_SIZE_BYTES = 2**30

_OFF = {"0", "off", "false", "no"}
_ON = {"", "1", "on", "true", "yes"}
_JAX_MIN_TIME_ENV = "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"
_JAX_DEFAULT_MIN_TIME = 1.0
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}


def cache_directory(environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The directory :func:`enable_compilation_cache` uses under ``environ`` (``os.environ``), or None
    where ``JAXLEARN_COMPILATION_CACHE`` turns the cache off.

    Reads only ``JAXLEARN_COMPILATION_CACHE``, ``XDG_CACHE_HOME`` and the home directory; JAX's own
    settings are checked by :func:`enable_compilation_cache`.
    """
    environ = os.environ if environ is None else environ
    setting = environ.get(ENV_VAR, "").strip()
    if setting.lower() in _OFF:
        return None
    if setting.lower() not in _ON:
        return os.path.abspath(os.path.expanduser(setting))
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jaxlearn", f"jax-{jax.__version__}")


def requested_at_import(environ: Optional[Mapping[str, str]] = None) -> bool:
    """Whether ``JAXLEARN_COMPILATION_CACHE`` asks ``import jaxlearn`` to turn the cache on (set, and
    neither empty nor off)."""
    environ = os.environ if environ is None else environ
    setting = environ.get(ENV_VAR, "").strip().lower()
    return bool(setting) and setting not in _OFF


def max_size(environ: Optional[Mapping[str, str]] = None) -> int:
    """The cache's bound in bytes under ``environ`` (``os.environ``): :data:`MAX_SIZE_BYTES` unless
    ``JAXLEARN_COMPILATION_CACHE_MAX_SIZE`` says otherwise (``-1``: no bound).

    Raises:
      ValueError: the variable is neither ``-1`` nor a positive whole number of bytes with an optional
        ``K``, ``M`` or ``G`` suffix.
    """
    environ = os.environ if environ is None else environ
    setting = environ.get(SIZE_ENV_VAR, "").strip().upper().removesuffix("B").removesuffix("I")
    if not setting:
        return MAX_SIZE_BYTES
    if setting == "-1":
        return -1
    number, unit = (setting[:-1], setting[-1]) if setting[-1] in _UNITS else (setting, "")
    if not (number.isascii() and number.isdigit()) or int(number) == 0:
        raise ValueError(
            f"{SIZE_ENV_VAR} must be -1 (no bound) or a positive number of bytes, optionally with a K, M "
            f"or G suffix (such as 500M); found {environ[SIZE_ENV_VAR]!r}"
        )
    return int(number) * _UNITS[unit]


def prune(path: str, bound: int) -> int:
    """Delete the least recently used entries of the cache in ``path`` while its entries add up to more
    than ``bound`` bytes, down to three quarters of it (so that the next imports find room); return the
    bytes deleted. Last use is a file's access or modification time, whichever is later. Never raises:
    an entry that cannot be read or deleted (another process may be pruning too) is skipped."""
    if bound < 0:  # no bound: nothing to scan
        return 0
    entries = []
    try:
        with os.scandir(path) as found:
            for entry in found:
                if entry.name.endswith("-cache") and entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    entries.append((max(info.st_atime, info.st_mtime), info.st_size, entry.path))
    except OSError:
        return 0
    total = sum(size for _, size, _ in entries)
    if total <= bound:
        return 0
    deleted = 0
    for _, size, file in sorted(entries):  # the least recently used first
        if total - deleted <= bound * 3 // 4:
            break
        try:
            os.remove(file)
            deleted += size
        except OSError:
            continue
        with contextlib.suppress(
            OSError
        ):  # JAX's own bounded cache keeps a time stamp beside each entry
            os.remove(file.removesuffix("-cache") + "-atime")
    return deleted


def _writable(path: str) -> bool:
    """Create ``path`` if needed and check that a file can be written there."""
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
        return True
    except OSError:
        return False


def _option(name: str):
    """The current value of JAX's configuration option ``name`` (None if this jax has no such option)."""
    return jax.config.values.get(name)


def _user_configured_jax() -> bool:
    configured = _option("jax_compilation_cache_dir") or os.environ.get("JAX_COMPILATION_CACHE_DIR")
    return bool(configured) or _option("jax_enable_compilation_cache") is False


def enable_compilation_cache(directory: Optional[str] = None) -> Optional[str]:
    """Keep the programs JAX compiles on disk, so that a new process reads them back instead of
    compiling them again; return the cache's directory (None: the cache stays off).

    Call it first thing in a notebook or script, before anything compiles. Never raises: a directory
    that cannot be written leaves the cache off with a warning.

    Args:
      directory: where to keep the programs; by default ``JAXLEARN_COMPILATION_CACHE`` if it names a
        directory, else ``$XDG_CACHE_HOME/jaxlearn/jax-<jax version>`` (``~/.cache/...``). Without it,
        a cache configured for JAX itself is left as it is (and its directory returned).

    Examples:
      >>> import jaxlearn
      >>> path = jaxlearn.enable_compilation_cache()  # doctest: +SKIP
    """
    try:
        if directory is None and _user_configured_jax():
            return _option("jax_compilation_cache_dir") or os.environ.get(
                "JAX_COMPILATION_CACHE_DIR"
            )
        path = (
            cache_directory()
            if directory is None
            else os.path.abspath(os.path.expanduser(directory))
        )
        if path is None:
            return None
        if not _writable(path):
            warnings.warn(
                f"jaxlearn: cannot write the compilation cache directory {path!r}; the persistent "
                f"compilation cache stays off. Set {ENV_VAR}=0 to silence this.",
                RuntimeWarning,
                stacklevel=2,
            )
            return None
        jax.config.update("jax_compilation_cache_dir", path)
        untouched = _option("jax_persistent_cache_min_compile_time_secs") == _JAX_DEFAULT_MIN_TIME
        if untouched and _JAX_MIN_TIME_ENV not in os.environ:
            jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_SECONDS)
        try:
            bound = max_size()
        except ValueError as error:
            warnings.warn(
                f"jaxlearn: {error}; the default bound applies", RuntimeWarning, stacklevel=2
            )
            bound = MAX_SIZE_BYTES
        prune(path, bound)
        return path
    except Exception as error:  # a cache is an optimisation: never break the import
        warnings.warn(
            f"jaxlearn: persistent compilation cache left off ({error})",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
