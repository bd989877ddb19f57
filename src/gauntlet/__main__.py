"""``python -m gauntlet`` runs the command line."""

import sys

from gauntlet.cli import main

sys.exit(main())
