"""The --smoke-test self-test passes offscreen."""

from __future__ import annotations

import subprocess
import sys


def test_smoke_test_passes_offscreen() -> None:
    code = "import sys; from reader.ui.smoke import run_smoke_test; sys.exit(run_smoke_test())"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "smoke test: ok" in proc.stdout
