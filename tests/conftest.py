"""Suite-wide options: `--run-slow` enables the long soak and load tests."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run the long soak and load tests")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="long run: use --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
