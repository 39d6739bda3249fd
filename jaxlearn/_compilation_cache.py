"""JAX's persistent compilation cache, on by default for jaxlearn's users.

A learner's first call compiles its programs (seconds on a small CPU); a fresh Python process (a new
notebook kernel, a script run again) compiles them again. JAX can keep compiled programs on disk and
read them back instead (its *persistent compilation cache*), but only once a cache directory is
configured. Importing jaxlearn configures one, unless the user has:

- ``JAXLEARN_COMPILATION_CACHE=0`` (or ``off``, ``false``, ``no``) in the environment: no cache;
- ``JAXLEARN_COMPILATION_CACHE=/some/path``: the cache lives in that directory;
- unset (or ``1``, ``on``, ``true``, ``yes``): ``$XDG_CACHE_HOME/jaxlearn/jax-<jax version>``, or
  ``~/.cache/jaxlearn/jax-<jax version>`` without ``XDG_CACHE_HOME``.

A cache the user configured for JAX itself (``JAX_COMPILATION_CACHE_DIR``, or
``jax.config.update("jax_compilation_cache_dir", ...)`` before importing jaxlearn) is left as it is,
and so is ``jax_enable_compilation_cache=False``. Every program is kept, however fast it compiled
(:data:`MIN_COMPILE_SECONDS`): a first call compiles many small programs, which JAX's own threshold
(1 s) would all leave out, unless the user set ``jax_persistent_cache_min_compile_time_secs`` (its
environment variable, or ``jax.config.update`` before the import). A directory that cannot be created
or written never breaks the import: the cache stays off, with one warning when the user named the
directory, silently for the default one (a read-only home directory). Entries are keyed by the
program, the jax/jaxlib version, the device and the compile options, so a stale entry is never used;
deleting the directory is always safe.

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
"""

from __future__ import annotations

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

_OFF = {"0", "off", "false", "no"}
_ON = {"", "1", "on", "true", "yes"}
_JAX_MIN_TIME_ENV = "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"
_JAX_DEFAULT_MIN_TIME = 1.0


def cache_directory(environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The directory jaxlearn would use for the cache under ``environ`` (``os.environ``), or None (off).

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


def enable_compilation_cache() -> Optional[str]:
    """Point JAX's persistent compilation cache at jaxlearn's directory; return it (None: left alone).

    Called once when ``jaxlearn`` is imported; see the module docstring for the rules. Never raises.
    """
    try:
        if _user_configured_jax():
            return None
        path = cache_directory()
        if path is None:
            return None
        if not _writable(path):
            if os.environ.get(ENV_VAR, "").strip().lower() not in _ON:
                warnings.warn(
                    f"jaxlearn: cannot write the compilation cache directory {path!r} (from {ENV_VAR}); "
                    f"the persistent compilation cache stays off. Set {ENV_VAR}=0 to silence this.",
                    RuntimeWarning,
                    stacklevel=2,
                )
            return None
        jax.config.update("jax_compilation_cache_dir", path)
        untouched = _option("jax_persistent_cache_min_compile_time_secs") == _JAX_DEFAULT_MIN_TIME
        if untouched and _JAX_MIN_TIME_ENV not in os.environ:
            jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_SECONDS)
        return path
    except Exception as error:  # a cache is an optimisation: never break the import
        warnings.warn(
            f"jaxlearn: persistent compilation cache left off ({error})", RuntimeWarning, stacklevel=2
        )
        return None
