"""The InfraNode suite as an lm-evaluation-harness task.

The task folder is this package's directory: ``infranode_tools_de.yaml`` plus ``utils.py``.
Point ``lm_eval --include_path`` at :func:`task_dir` (``tooleval lm-eval-path`` prints it).
Nothing here imports lm_eval; ``utils.py`` is loaded by lm-eval from the YAML.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

TASK_NAME = "infranode_tools_de"
TASK_YAML = f"{TASK_NAME}.yaml"


def task_dir() -> Path:
    """The directory holding the task YAML, as a real path lm-eval can scan."""
    folder = Path(str(resources.files(__name__)))
    if not (folder / TASK_YAML).is_file():
        raise FileNotFoundError(
            f"{folder}: {TASK_YAML} not found; tooleval must be installed as files on disk "
            "(not from a zip) for lm-eval to read its task"
        )
    return folder
