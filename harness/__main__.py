"""`python -m harness <command>`: see harness.cli."""

from harness.cli import main

raise SystemExit(main())
