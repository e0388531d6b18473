import subprocess
import sys

import pytest

from harness.paths import ROOT

pytest_plugins = ["pytester"]


@pytest.fixture
def collected():
    """The scenario runs pytest would generate for these arguments: `collected("scenarios", "--browser", "chromium")`."""

    def collect(*args: str) -> list[str]:
        run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        return [line for line in run.stdout.splitlines() if "::" in line]

    return collect
