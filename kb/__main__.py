"""``python -m kb``: the ``rulekb`` command (how ``rulekb serve --build`` starts the build behind it).

SIGINT interrupts it even when it was started in the background, where shells ignore SIGINT: the
server stops the build behind it that way, and an interrupted build drops its unfinished generation.
"""

import signal

from kb.cli import main

signal.signal(signal.SIGINT, signal.default_int_handler)
main()
