"""``python -m kb``: the ``rulekb`` command (how ``rulekb serve --build`` starts the build behind it).

SIGINT interrupts it even when it was started in the background, where shells ignore SIGINT: the
server stops the build behind it that way, and an interrupted build drops its unfinished generation.
The handler goes in before the imports, which take most of a start. Started by a server (``RULEKB_PARENT``
names it), the build is interrupted the same way when the server dies, even by SIGKILL: it then neither
holds the home's writer lock nor swaps a KB in behind a server that is gone.
"""

import os
import signal

signal.signal(signal.SIGINT, signal.default_int_handler)
if os.environ.get("RULEKB_PARENT", "").isdigit():
    from kb.children import die_with_parent

    die_with_parent(int(os.environ.pop("RULEKB_PARENT")), signal.SIGINT)

from kb.cli import main  # noqa: E402 (after the handler: SIGINT may come while this imports)

main()
