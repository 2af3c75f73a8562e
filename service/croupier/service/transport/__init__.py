"""How requests reach the referee: the gRPC server and its servicer (the API's contract, one
method per RPC), the call wrapper that every RPC passes through (credentials, admission, rate
limits, the call's log line and metrics), a seat's PlayGame session, the lobby's RPCs, the
web gateway for browsers, and the server's settings."""
