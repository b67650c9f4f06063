"""Tables of every game: create, read, delete, finish, deal, rounds, a seat's view, events."""
