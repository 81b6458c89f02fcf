"""``python -m kb``: the ``rulekb`` command (how ``rulekb serve --build`` starts the build behind it).

SIGINT interrupts it even when it was started in the background, where shells ignore SIGINT: the
server stops the build behind it that way, and an interrupted build drops its unfinished generation.
The handler goes in before the imports, which take most of a start.
"""

import signal

signal.signal(signal.SIGINT, signal.default_int_handler)

from kb.cli import main  # noqa: E402 (after the handler: SIGINT may come while this imports)

main()
