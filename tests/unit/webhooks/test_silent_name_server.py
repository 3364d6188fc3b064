"""One merchant's name server that never answers cannot stop other merchants' deliveries (server/webhooks/urls.py
`resolve`): a name has one lookup under way at a time, in a pool of its own."""

from __future__ import annotations

import asyncio
import socket
import threading
from typing import Any

import pytest

from server.webhooks import urls


@pytest.fixture
def silent_name_server(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The system resolver hangs on `*.silent.example` until released; other names answer at once."""
    release = threading.Event()
    asked: list[str] = []

    def getaddrinfo(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        asked.append(host)
        if host.endswith(".silent.example"):
            release.wait(30)
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 0))]

    monkeypatch.setattr(urls.socket, "getaddrinfo", getaddrinfo)
    yield asked
    release.set()


async def give_up_after(seconds: float, host: str) -> str:
    try:
        async with asyncio.timeout(seconds):
            await urls.resolve(host)
    except TimeoutError:
        return "timeout"
    return "resolved"


def test_repeated_lookups_of_a_silent_name_share_one_thread_and_others_still_resolve(silent_name_server: Any) -> None:
    async def scenario() -> None:
        # Far more tries of the silent name than the pool has threads, each giving up after a moment.
        for _ in range(3):
            tries = await asyncio.gather(*(give_up_after(0.05, "hooks.silent.example") for _ in range(50)))
            assert set(tries) == {"timeout"}
        assert silent_name_server.count("hooks.silent.example") == 1
        assert await give_up_after(2, "hooks.other-merchant.example") == "resolved"
    asyncio.run(scenario())


def test_a_waiter_giving_up_does_not_cancel_the_lookup_others_wait_for(silent_name_server: Any) -> None:
    async def scenario() -> None:
        waiting = asyncio.create_task(give_up_after(0.5, "a.silent.example"))
        assert await give_up_after(0.01, "a.silent.example") == "timeout"
        assert await waiting == "timeout"  # it waited its own time, on the same lookup
        assert silent_name_server.count("a.silent.example") == 1
    asyncio.run(scenario())
