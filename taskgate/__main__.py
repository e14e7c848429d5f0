"""`python -m taskgate` is the `taskgate` command."""

import sys

from taskgate.proxy.cli import main

sys.exit(main())
