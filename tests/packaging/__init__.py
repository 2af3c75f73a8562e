"""Tests of the two distributions: the client (clients/python) installs and works without the
server, and imports nothing of it."""
