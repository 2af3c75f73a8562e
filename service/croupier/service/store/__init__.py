"""Where games live: the Store protocol (an atomic compare-and-set per move), the Redis store
and its client, the in-memory store, key names, durability, the watch streams' fan-out, and
the embedded Redis of the default deployment."""
