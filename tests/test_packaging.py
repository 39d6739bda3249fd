"""What a user installing jaxlearn meets: a license, type information, and optional dependencies that
fail with the extra to install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_license_and_type_information_ship():
    assert "Apache License" in (ROOT / "LICENSE").read_text()
    assert (ROOT / "jaxlearn" / "py.typed").exists()


def test_missing_scikit_learn_names_the_extra():
    code = (
        "import sys; sys.modules['sklearn'] = None\n"
        "try:\n    import jaxlearn.sklearn\nexcept ImportError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert "pip install 'jaxlearn[sklearn]'" in done.stdout, done.stdout + done.stderr
