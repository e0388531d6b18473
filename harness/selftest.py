"""`python -m harness selftest`: the project's own tests, as README's test command runs them.

1. the harness's unit tests (tests/);
2. every scenario against the reference on Chromium with and without the WebMCP flag, both
   call paths (the baseline applies);
3. the mutation proof: each named fault of the reference is caught by a scenario of its rule.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from harness import faults
from harness.paths import ROOT

BROWSERS = ("chromium", "chromium-noflag")


def run(args) -> int:
    pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    browsers = [a for b in BROWSERS for a in ("--browser", b)]
    with tempfile.TemporaryDirectory(prefix="harness-selftest-") as tmp:
        results = Path(tmp) / "results.json"
        steps = [
            ("unit tests", [*pytest, "tests", "-q"]),
            ("scenarios", [*pytest, "scenarios", "-q", "-n", str(args.workers), *browsers,
                           f"--results-json={results}", f"--output={Path(tmp) / 'artifacts'}"]),
        ]
        outcomes = []
        for name, command in steps:
            print(f"selftest: {name}: {' '.join(command[2:])}", flush=True)
            code = subprocess.run(command, cwd=ROOT).returncode
            outcomes.append((name, code == 0))
        print("selftest: fault proof (Chromium with the flag, in-page and relay)", flush=True)
        proof = faults.prove_all(["--browser", "chromium"], workers=int(args.workers),
                                 clean_results=results if results.exists() else None)
        outcomes.append(("fault proof", proof == 0))
    passed = sum(ok for _, ok in outcomes)
    for name, ok in outcomes:
        print(f"selftest: {name}: {'passed' if ok else 'FAILED'}")
    print(f"{passed} passed, {len(outcomes) - passed} failed")
    return 0 if passed == len(outcomes) else 1
