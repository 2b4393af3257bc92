"""``python -m flake8_torchdevice``: the ``torchdevice`` command."""

import sys

from .cli import main

sys.exit(main())
