"""The persistent compilation cache of ``jaxlearn.enable_compilation_cache`` (``_compilation_cache.py``).

Each case runs in a fresh Python process with a controlled environment: the cache is configured
once per process, before the first compilation, so these cases cannot share the test process.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import jax
import pytest

from jaxlearn import _compilation_cache

ROOT = Path(__file__).resolve().parents[1]
MODULE = str(ROOT / "jaxlearn" / "_compilation_cache.py")

# Enable the cache (``enable_compilation_cache()``, or ``import jaxlearn`` alone), compile one small
# program (jaxlearn keeps every program, however fast it compiled), and report what happened.
SCRIPT = """
import json, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import jax
    if {user_dir!r}:
        jax.config.update("jax_compilation_cache_dir", {user_dir!r})
    if {package}:
        import jaxlearn
        path = jax.config.values.get("jax_compilation_cache_dir")
    else:  # the module alone (it needs only jax): a process that does not import all of jaxlearn
        import importlib.util
        spec = importlib.util.spec_from_file_location("cache", {module!r})
        _compilation_cache = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_compilation_cache)
        path = _compilation_cache.enable_compilation_cache()
    import jax.numpy as jnp
    value = float(jax.jit(lambda x: jnp.sin(x).sum() * 3.0)(jnp.arange(5.0)))
print(json.dumps({{"path": path, "dir": jax.config.values.get("jax_compilation_cache_dir"), "value": value,
                  "warnings": [str(w.message) for w in caught if "jaxlearn" in str(w.message)]}}))
"""


def run(tmp_path, *, user_dir="", package=False, **env_vars):
    ours = (
        "JAX_COMPILATION_CACHE",
        "JAX_ENABLE_COMPILATION_CACHE",
        "JAX_PERSISTENT_CACHE",
        "JAXLEARN_",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    env.update(
        {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path / "home"), **env_vars}
    )
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(user_dir=user_dir, package=package, module=MODULE)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def entries(path):
    return (
        [p for p in Path(path).iterdir() if p.name.endswith("-cache")]
        if Path(path).exists()
        else []
    )


def test_on_by_default_under_xdg_cache_home(tmp_path):
    out = run(tmp_path)
    expected = tmp_path / "xdg" / "jaxlearn" / f"jax-{jax.__version__}"
    assert out["path"] == out["dir"] == str(expected)
    assert entries(expected), "no cache entry written"
    assert out["value"] == pytest.approx(3.0 * sum(math.sin(i) for i in range(5)), rel=1e-6)
    assert out["warnings"] == []


def test_home_cache_without_xdg(tmp_path):
    out = run(tmp_path, XDG_CACHE_HOME="")
    assert out["path"].startswith(str(tmp_path / "home" / ".cache" / "jaxlearn" / "jax-"))
    assert entries(out["path"])


def test_off_with_the_environment_variable(tmp_path):
    out = run(tmp_path, JAXLEARN_COMPILATION_CACHE="off")
    assert out["path"] is None and out["dir"] is None
    assert not (tmp_path / "xdg").exists()


def test_directory_named_by_the_environment_variable(tmp_path):
    chosen = tmp_path / "chosen" / "cache"
    out = run(tmp_path, JAXLEARN_COMPILATION_CACHE=str(chosen))
    assert out["path"] == out["dir"] == str(chosen)
    assert entries(chosen) and not (tmp_path / "xdg").exists()


def test_users_own_threshold_is_respected(tmp_path):
    out = run(tmp_path, JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="100")
    assert out["path"] == out["dir"] and not entries(out["path"])  # the directory, but nothing kept


def test_users_own_jax_cache_is_respected(tmp_path):
    mine = tmp_path / "mine"
    out = run(tmp_path, JAX_COMPILATION_CACHE_DIR=str(mine))
    assert out["path"] == out["dir"] == str(mine)
    assert not entries(mine)  # JAX's own threshold (1 s) left as it was: nothing this small is kept
    assert not (tmp_path / "xdg").exists()
    configured = tmp_path / "configured"
    out = run(tmp_path, user_dir=str(configured))
    assert out["path"] == out["dir"] == str(configured)
    assert not (tmp_path / "xdg").exists()


def test_unusable_default_directory_warns_and_stays_off(tmp_path):
    blocker = tmp_path / "a-file"  # a file where the directory should go: unusable, even for root
    blocker.write_text("not a directory")
    out = run(tmp_path, XDG_CACHE_HOME=str(blocker))
    assert out["path"] is None and out["dir"] is None and len(out["warnings"]) == 1
    assert out["value"] == pytest.approx(3.0 * sum(math.sin(i) for i in range(5)), rel=1e-6)


def test_unusable_named_directory_warns_once_and_stays_off(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    out = run(tmp_path, JAXLEARN_COMPILATION_CACHE=str(blocker / "cache"))
    assert out["path"] is None and out["dir"] is None
    assert len(out["warnings"]) == 1 and "JAXLEARN_COMPILATION_CACHE=0" in out["warnings"][0]


def test_import_jaxlearn_changes_nothing_unless_asked(tmp_path):
    out = run(tmp_path, package=True)
    assert out["dir"] is None and not (tmp_path / "xdg").exists() and out["warnings"] == []
    for asked in ("1", "on"):
        out = run(tmp_path / asked, package=True, JAXLEARN_COMPILATION_CACHE=asked)
        assert out["dir"] == str(tmp_path / asked / "xdg" / "jaxlearn" / f"jax-{jax.__version__}")
        assert entries(out["dir"]) and out["warnings"] == []
    chosen = tmp_path / "chosen"
    assert run(tmp_path, package=True, JAXLEARN_COMPILATION_CACHE=str(chosen))["dir"] == str(chosen)
    assert run(tmp_path / "off", package=True, JAXLEARN_COMPILATION_CACHE="0")["dir"] is None


def test_cache_directory_rules():
    for off in ("0", "off", "False", " no "):
        assert _compilation_cache.cache_directory({"JAXLEARN_COMPILATION_CACHE": off}) is None
    assert _compilation_cache.cache_directory(
        {"JAXLEARN_COMPILATION_CACHE": "1", "XDG_CACHE_HOME": "/x"}
    ) == (os.path.join("/x", "jaxlearn", f"jax-{jax.__version__}"))
    assert _compilation_cache.cache_directory(
        {"JAXLEARN_COMPILATION_CACHE": "~/c"}
    ) == os.path.expanduser("~/c")


def test_max_size_rules():
    size = _compilation_cache.max_size
    assert size({}) == _compilation_cache.MAX_SIZE_BYTES == 2**30
    var = _compilation_cache.SIZE_ENV_VAR
    for setting, expected in [
        ("123", 123),
        ("4k", 4096),
        ("500M", 500 * 2**20),
        (" 2GiB ", 2 * 2**30),
        ("3MB", 3 * 2**20),
        ("-1", -1),
    ]:
        assert size({var: setting}) == expected, setting
    for bad in ("lots", "0", "-5", "1.5G", "12T", "G", "٣M"):
        with pytest.raises(ValueError, match=f"{var} must be -1 .* found {bad!r}"):
            size({var: bad})


def fill(directory, sizes, start=1_000_000):
    """Fake cache entries ``e0-cache``, ``e1-cache``, ... of the given sizes, each with a JAX-style
    ``-atime`` stamp beside it, last used one second apart (``e0`` the longest ago)."""
    directory.mkdir(parents=True, exist_ok=True)
    for i, size in enumerate(sizes):
        for suffix, data in (("-cache", b"x" * size), ("-atime", b"t")):
            path = directory / f"e{i}{suffix}"
            path.write_bytes(data)
            os.utime(path, (start + i, start + i))
    return directory


def test_prune_deletes_the_least_recently_used_down_to_three_quarters(tmp_path):
    cache = fill(tmp_path / "c", [100] * 10)
    (cache / "notes.txt").write_bytes(b"y" * 10_000)  # not an entry: never counted or deleted
    assert _compilation_cache.prune(str(cache), 1000) == 0  # 1,000 bytes: within the bound
    assert _compilation_cache.prune(str(cache), -1) == 0
    os.utime(cache / "e0-cache", (2_000_000, 1_000_000))  # e0 read most recently (access time)
    assert _compilation_cache.prune(str(cache), 900) == 400  # down to 675: 6 entries of 100 kept
    assert {p.name for p in cache.glob("*-cache")} == {
        "e0-cache",
        "e5-cache",
        "e6-cache",
        "e7-cache",
        "e8-cache",
        "e9-cache",
    }
    assert {p.name for p in cache.glob("*-atime")} == {
        p.name.replace("-cache", "-atime") for p in cache.glob("*-cache")
    }
    assert (cache / "notes.txt").exists()
    assert _compilation_cache.prune(str(tmp_path / "missing"), 10) == 0  # never raises


def test_import_prunes_an_oversized_cache(tmp_path):
    default = tmp_path / "xdg" / "jaxlearn" / f"jax-{jax.__version__}"
    fill(default, [4096] * 8)  # 32 KiB of old entries against a bound of 16 KiB
    out = run(
        tmp_path,
        package=True,
        JAXLEARN_COMPILATION_CACHE="1",
        JAXLEARN_COMPILATION_CACHE_MAX_SIZE="16K",
    )
    old = [p for p in entries(default) if p.name.startswith("e")]
    assert len(old) == 3 and {p.name for p in old} == {"e5-cache", "e6-cache", "e7-cache"}
    assert len(entries(default)) > len(old), "the new program was not cached"
    assert out["warnings"] == []


def test_bad_size_warns_and_keeps_the_default_bound(tmp_path):
    default = tmp_path / "xdg" / "jaxlearn" / f"jax-{jax.__version__}"
    fill(default, [4096] * 4)
    out = run(
        tmp_path,
        package=True,
        JAXLEARN_COMPILATION_CACHE="1",
        JAXLEARN_COMPILATION_CACHE_MAX_SIZE="huge",
    )
    assert (
        out["dir"] == str(default) and len(entries(default)) > 4
    )  # 16 KiB, far below 1 GiB: all kept
    assert {f"e{i}-cache" for i in range(4)} <= {p.name for p in entries(default)}
    assert (
        len(out["warnings"]) == 1
        and "JAXLEARN_COMPILATION_CACHE_MAX_SIZE must be" in out["warnings"][0]
    )
