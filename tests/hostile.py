"""Crafted files for the hostile-input tests: payloads that leave a marker file if they run."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path


class TouchOnUnpickle:
    """Unpickling this creates ``marker``: stands in for arbitrary code in a crafted file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: ANN204
        return (Path.touch, (self.marker,))


def crafted_sb3_zip(path: Path, marker: Path) -> Path:
    """An SB3-shaped checkpoint whose ``lr_schedule`` would create ``marker`` if unpickled."""
    payload = base64.b64encode(pickle.dumps(TouchOnUnpickle(marker))).decode()
    data = {"lr_schedule": {":type:": "<class 'function'>", ":serialized:": payload}}
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(data))
        zf.writestr("_stable_baselines3_version", "2.9.2")
    return path


def _zip_entry(name: str, method: int, data: bytes, size: int, crc: int,
               offset: int) -> tuple[bytes, bytes]:
    """The local header plus data, and the central-directory record, of one zip entry."""
    import struct

    raw = name.encode()
    local = struct.pack("<4s2B4HL2L2H", b"PK\x03\x04", 20, 0, 0, method, 0, 0x21,
                        crc, len(data), size, len(raw), 0) + raw + data
    central = struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 3, 20, 0, 0, method, 0, 0x21,
                          crc, len(data), size, len(raw), 0, 0, 0, 0, 0o644 << 16,
                          offset) + raw
    return local, central


def write_zip(path: Path, entries: list[tuple[str, int, bytes, int, int]]) -> Path:
    """A zip written by hand from ``(name, method, data as stored, declared size, crc)``
    entries: what a crafted file can declare, whatever the data really inflates to."""
    import struct

    body, directory = b"", b""
    for name, method, data, size, crc in entries:
        local, central = _zip_entry(name, method, data, size, crc, len(body))
        body, directory = body + local, directory + central
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries),
                      len(directory), len(body), 0)
    path.write_bytes(body + directory + end)
    return path


def deflated_zeros(header: bytes, megabytes: int) -> bytes:
    """A raw deflate stream of ``header`` then ``megabytes`` MiB of zeros, built without
    compressing them all: after a full flush the compressed block of 1 MiB of zeros repeats."""
    import zlib

    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = bytes(1 << 20)
    head = z.compress(header) + z.flush(zlib.Z_FULL_FLUSH)
    first = z.compress(chunk) + z.flush(zlib.Z_FULL_FLUSH)
    again = z.compress(chunk) + z.flush(zlib.Z_FULL_FLUSH)
    assert z.compress(chunk) + z.flush(zlib.Z_FULL_FLUSH) == again  # the block repeats
    return head + first + again * (megabytes - 1) + z.flush()


def npz_bomb(path: Path, valid_npz: Path, key: str, megabytes: int) -> Path:
    """``valid_npz`` with array ``key`` replaced by one that inflates to ``megabytes`` MiB
    (about 1 KiB of file per MiB inflated)."""
    import io

    import numpy as np

    with zipfile.ZipFile(valid_npz) as zf:
        kept = [(i.filename, zf.read(i.filename)) for i in zf.infolist()
                if i.filename != f"{key}.npy"]
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": ((megabytes << 20) // 4,)})
    size = len(header.getvalue()) + (megabytes << 20)
    import zlib

    entries = [(name, 0, data, len(data), zlib.crc32(data)) for name, data in kept]
    entries.append((f"{key}.npy", 8, deflated_zeros(header.getvalue(), megabytes), size, 0))
    return write_zip(path, entries)
