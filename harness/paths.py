"""Where the repository's parts live on disk."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
REFERENCE = FIXTURES / "reference"
REFERENCE_DIST = REFERENCE / "dist"
NODE_MODULES = ROOT / "node_modules"
SCENARIOS = ROOT / "scenarios"
