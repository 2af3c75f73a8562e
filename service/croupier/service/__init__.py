"""The gRPC service, in four layers that import one way: transport → application →
observability → store (tests/test_layers.py). `main` wires them into a process."""
