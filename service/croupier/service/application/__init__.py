"""The referee around the engines: a game loaded and viewed per seat, a move decided and
written, turn clocks and their sweep, bot seats, the lobby's listings, replays, and the errors
each of them refuses with. It knows the store only through its protocol and nothing of gRPC's
servers."""
