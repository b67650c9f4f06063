"""``python -m service.cli``: the ``referee`` command (the tests and
``referee serve``'s child worker start it so)."""

from . import main

raise SystemExit(main())
