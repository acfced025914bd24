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
