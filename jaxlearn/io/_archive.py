"""The archive as untrusted bytes: a regular file, stored (never compressed) members whose sizes add
up to no more than the file, and ``.npy`` headers checked against the metadata before any array is
read, so reading costs at most the file's size."""

from __future__ import annotations

import json
import math
import os
import stat
import zipfile

import numpy as np

from jaxlearn.io._arrays import storage_dtype
from jaxlearn.io._common import FORMAT, META, VERSION, FileError

_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_MAX_HEADER = 10_000


def _open(path: str):
    """The file opened for reading without blocking, refused unless it is a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise FileError(f"{path}: cannot be opened ({e.strerror})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")
        raise FileError(f"{path}: not a jaxlearn file ({kind}, not a regular file)")
    return os.fdopen(fd, "rb")


def _members(path: str, archive: zipfile.ZipFile, size: int) -> dict:
    infos = archive.infolist()
    names = [info.filename for info in infos]
    if len(set(names)) != len(names):
        raise FileError(f"{path}: corrupted file (a member name appears twice)")
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 0x1:
            raise FileError(
                f"{path}: the member {info.filename!r} is compressed or encrypted; jaxlearn writes "
                "stored members only and refuses others (their size is not bounded by the file's)"
            )
    declared = sum(info.file_size for info in infos)
    if declared > size:
        raise FileError(
            f"{path}: corrupted file (its members declare {declared} bytes, the file has {size})"
        )
    return {info.filename: info for info in infos}


def _read_npy(path: str, archive: zipfile.ZipFile, info, dtype: np.dtype, shape: list, name: str):
    """The array of one member, its header checked against ``dtype`` and ``shape`` first."""
    with archive.open(info) as f:
        try:
            version = np.lib.format.read_magic(f)
            read_header = {(1, 0): np.lib.format.read_array_header_1_0}.get(
                version, np.lib.format.read_array_header_2_0
            )
            found_shape, fortran, found_dtype = read_header(f, max_header_size=_MAX_HEADER)
        except zipfile.BadZipFile:
            raise  # a bad CRC: a corrupted archive
        except Exception as e:  # noqa: BLE001 - NumPy's header errors vary by version
            raise FileError(f"{path}: corrupted file ({name} is not .npy data: {e})") from None
        if found_dtype != dtype or list(found_shape) != shape:
            found = f"{found_dtype}{list(found_shape)}"
            raise FileError(
                f"{path}: corrupted file ({name} holds {found}, the metadata says {dtype}{shape})"
            )
        nbytes = math.prod(shape) * dtype.itemsize
        if f.tell() + nbytes != info.file_size:
            raise FileError(
                f"{path}: corrupted file ({name} has {info.file_size} bytes, not {nbytes} of data)"
            )
        data = bytearray(f.read(nbytes))
    array = np.frombuffer(data, dtype)
    return array.reshape(shape[::-1]).T if fortran else array.reshape(shape)


def _metadata(path: str, archive: zipfile.ZipFile, members: dict) -> dict:
    info = members.get(f"{META}.npy")
    if info is None:
        raise FileError(f"{path}: not a jaxlearn file (an .npz archive without {META!r})")
    with archive.open(info) as f:
        try:
            np.lib.format.read_magic(f)
            shape, _, dtype = np.lib.format.read_array_header_1_0(f, max_header_size=_MAX_HEADER)
        except Exception:  # noqa: BLE001
            raise FileError(f"{path}: corrupted metadata (not a uint8 vector)") from None
    if dtype != np.uint8 or len(shape) != 1:
        raise FileError(f"{path}: corrupted metadata (not a uint8 vector)")
    raw = _read_npy(path, archive, info, np.dtype(np.uint8), list(shape), META)
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise FileError(f"{path}: corrupted metadata (not UTF-8 JSON: {e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise FileError(f"{path}: not a jaxlearn file (its metadata is not of format {FORMAT!r})")
    version = meta.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:
        raise FileError(
            f"{path}: format version {version!r}, this jaxlearn reads versions 1 to {VERSION} "
            f"(written by jaxlearn {meta.get('jaxlearn')!r})"
        )
    return meta


def read(path: str) -> tuple[dict, list]:
    """The metadata and the stored arrays of the file at ``path`` (:class:`FileError` on any problem)."""
    with _open(path) as f:
        if f.read(4) != b"PK\x03\x04":
            raise FileError(f"{path}: not a jaxlearn file (not a NumPy .npz archive)")
        size = os.fstat(f.fileno()).st_size
        try:
            f.seek(0)
            with zipfile.ZipFile(f) as archive:
                members = _members(path, archive, size)
                meta = _metadata(path, archive, members)
                leaves = meta.get("leaves")
                names = (
                    [f"{META}.npy"] + [f"leaf_{i}.npy" for i in range(len(leaves))]
                    if isinstance(leaves, list)
                    else None
                )
                if names is None or sorted(members) != sorted(names):
                    raise FileError(
                        f"{path}: corrupted file (its arrays do not match the metadata)"
                    )
                arrays = []
                for i, spec in enumerate(leaves):
                    dtype, shape = (
                        storage_dtype(spec),
                        spec.get("shape") if isinstance(spec, dict) else None,
                    )
                    if dtype is None or not (
                        isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)
                    ):
                        raise FileError(
                            f"{path}: corrupted metadata (leaf_{i}: a bad dtype or shape)"
                        )
                    arrays.append(
                        _read_npy(
                            path, archive, members[f"leaf_{i}.npy"], dtype, shape, f"leaf_{i}"
                        )
                    )
        except FileError:
            raise
        except Exception as e:  # noqa: BLE001 - zip structure and CRC errors all mean a bad file
            raise FileError(
                f"{path}: truncated or corrupted file ({type(e).__name__}: {e})"
            ) from None
    return meta, arrays
