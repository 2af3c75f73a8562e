"""The gRPC service: server, servicer, stores, credentials, views, errors and logging."""
