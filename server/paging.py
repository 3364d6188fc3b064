"""Page-style pagination: `page` from 0 and `page_size`, with the defaults of DESIGN.md §12."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message

from server.errors import invalid

DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100


@dataclass(frozen=True)
class Page:
    page: int
    size: int

    @property
    def offset(self) -> int:
        return self.page * self.size


def page_of(request: Message, *, max_size: int = MAX_PAGE_SIZE) -> Page:
    """A missing `page` is 0 and a missing `page_size` 10; a present but invalid value is refused."""
    page = request.page if request.HasField("page") else 0  # type: ignore[attr-defined]
    size = request.page_size if request.HasField("page_size") else DEFAULT_PAGE_SIZE  # type: ignore[attr-defined]
    if page < 0:
        raise invalid("page", "must be 0 or more")
    if not 1 <= size <= max_size:
        raise invalid("page_size", f"must be from 1 to {max_size}")
    return Page(page, size)
