"""`python -m recdiv …` runs the `recdiv` command line."""

from recdiv.cli import main

raise SystemExit(main())
