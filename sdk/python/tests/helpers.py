"""Shared test helpers: where the harness's files are, with in-repo fallbacks
so the offline tests run from a plain checkout too."""

from __future__ import annotations

import json
import os
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def env_path(name: str, fallback: str) -> Optional[str]:
    """The file the harness names in env var name, else the repo's copy, else None."""
    p = os.environ.get(name) or os.path.join(REPO, fallback)
    return p if os.path.exists(p) else None


def load_json(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)
