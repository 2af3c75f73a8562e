"""croupier-server collects Python's youngest generation less often than Python's default and
never traverses what start-up made again (docs/decisions.md, "The server collects garbage less
often"); cycles are still collected."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from croupier.service.main import GC_THRESHOLD

# main() with its event loop's run replaced: what the process is like when it starts serving.
PROBE = textwrap.dedent(
    """
    import asyncio, gc, sys
    from croupier.service import main

    print(gc.get_threshold()[0])  # Python's own, before main()

    def serving(coroutine):
        coroutine.close()
        print(gc.get_threshold()[0], gc.get_freeze_count())

    asyncio.run = serving
    main.main(["--redis-url", "redis://127.0.0.1:1/0", "--log-level", "error"])
    """
)


def test_the_server_freezes_start_up_and_collects_less_often() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    default, threshold, frozen = map(int, done.stdout.split())
    assert threshold == GC_THRESHOLD > default
    assert frozen > 10_000  # the modules, the descriptors: start-up's objects


def test_cycles_are_still_collected() -> None:
    code = textwrap.dedent(
        """
        import gc, weakref
        from croupier.service.main import collect_less

        class Node:
            pass

        collect_less()
        node = Node()
        node.itself = node
        alive = weakref.ref(node)
        del node
        alive_lists = [[i] for i in range(30_000)]  # past the threshold: a collection runs
        print(alive() is None)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["True"]
