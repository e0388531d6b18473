"""`python -m harness selftest`: the project's own tests, as README's test command runs them.

1. the harness's unit tests (tests/);
2. the main job, through the same code as `python -m harness verify`: every scenario against the
   reference on every browser configuration available, writing the Verification tables into
   test-results/main-job/, then checking them against results.json;
3. the fault proof on both Chromium configurations: each named fault of the reference is caught
   by a check of its rule (the main job's rows are its clean runs), and breaks no sentinel.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from harness import faults, verify
from harness.paths import ROOT

MAIN_JOB_OUT = ROOT / "test-results" / "main-job"


def run(args) -> int:
    pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    outcomes = []

    print("selftest: unit tests", flush=True)
    outcomes.append(("unit tests", subprocess.run([*pytest, "tests", "-q"], cwd=ROOT).returncode == 0))

    print(f"selftest: the main job (python -m harness verify --out {MAIN_JOB_OUT.relative_to(ROOT)})", flush=True)
    main_job = argparse.Namespace(target="reference", base_url=None, browser=None, call_path=None, fault=None,
                                  out=str(MAIN_JOB_OUT), lang="en", workers=args.workers, real_time=False, pytest_args=[])
    outcomes.append(("main job", verify.run(main_job) == 0))

    results = MAIN_JOB_OUT / "results.json"
    print("selftest: fault proof (chromium and chromium-noflag)", flush=True)
    proof = faults.run_proof(list(faults.PROOF_BROWSERS), workers=int(args.workers),
                             clean_results=results if results.exists() else None, out=MAIN_JOB_OUT)
    outcomes.append(("fault proof", proof == 0))

    passed = sum(ok for _, ok in outcomes)
    for name, ok in outcomes:
        print(f"selftest: {name}: {'passed' if ok else 'FAILED'}")
    print(f"{passed} passed, {len(outcomes) - passed} failed")
    return 0 if passed == len(outcomes) else 1
