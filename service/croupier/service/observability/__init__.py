"""What the service tells its operators: one JSON log line per request (structlog) and the
Prometheus metrics."""
