"""The solved tables on disk: one ``.npy`` per configuration, loaded memory-mapped.

The directory is given by the caller (the site passes ``settings.COACH_TABLES_DIR``), so that
this package needs no Django. A table is built once (``manage.py solve``) and read lazily:
``np.load(mmap_mode="r")`` maps the file, and only the pages a lookup touches are read.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from .model import Config, build_model
from .solver import Progress, expected_score, solve

#: Bumped whenever the solver's layout or meaning of a table changes: older files are ignored.
FORMAT = 1


class Tables:
    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._loaded: dict[Config, np.ndarray] = {}

    def path(self, config: Config) -> Path:
        return self.directory / f"{config.name}.v{FORMAT}.npy"

    def exists(self, config: Config) -> bool:
        return self.path(config).exists()

    def load(self, config: Config) -> np.ndarray | None:
        """The table, memory-mapped, or None when it has not been built."""
        table = self._loaded.get(config)
        if table is None:
            path = self.path(config)
            if not path.exists():
                return None
            table = self._loaded[config] = np.load(path, mmap_mode="r")
        return table

    def build(self, config: Config, progress: Progress | None = None) -> tuple[np.ndarray, float]:
        """Solve and save the table (written aside, then renamed: never half a file)."""
        begun = time.monotonic()
        table = solve(build_model(config), progress)
        seconds = time.monotonic() - begun
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.path(config)
        with tempfile.NamedTemporaryFile(dir=self.directory, suffix=".npy", delete=False) as out:
            np.save(out, table)
        # A temporary file is private (0600); the table is for the site's user too.
        os.chmod(out.name, 0o644)
        os.replace(out.name, path)
        note = {
            "config": config.name,
            "expected_score": round(expected_score(table), 6),
            "seconds": round(seconds, 1),
            "shape": list(table.shape),
        }
        path.with_suffix(".json").write_text(json.dumps(note, indent=1) + "\n")
        self._loaded.pop(config, None)
        return self.load(config), seconds  # type: ignore[return-value]

    def get(self, config: Config, progress: Progress | None = None) -> tuple[np.ndarray, bool]:
        """The table, built if need be; and whether it was built now."""
        table = self.load(config)
        if table is not None:
            return table, False
        return self.build(config, progress)[0], True
