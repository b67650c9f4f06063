"""Live event streams of a table: one Redis subscription per process
(:mod:`.hub`) and the server-sent event frames of a table's log
(:mod:`.follow`). Knows no game and no HTTP route (``service.resources.streams.endpoints``
serves them)."""
