"""Stock holds and card payments (DESIGN §16, server/products/stock.py), on provider_a's localstripe: a checkout paid
after its hold lapsed, whose units were sold to another shopper meanwhile, is still sold (money is never refused:
the stock stops at 0); a card payment under way (3-D Secure open) is money on its way and keeps the hold past it.

A service of this file's own, whose checkout hold is 120 s and whose clock the tests move forward (tests/clock.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import fails, ok
from tests.e2e.cards.support import THREE_D_SECURE, chose_card
from tests.e2e.cards.test_stock_sold_by_card import in_stock, pay_by_card, stock_of
from tests.e2e.http.test_payment_link_availability import buy
from tests.harness import Service, start, stop
from tests.localstripe import LocalStripe

HOLD = 120


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            localstripe: LocalStripe) -> Iterator[Service]:
    workdir = Path(tmp_path_factory.mktemp(f"cards-hold-{request.param}"))
    svc = start(request.param, workdir, clock_file=workdir / "clock-offset",
                extra_env={"PAYGATE_PROVIDER_A_API_BASE": localstripe.url,
                           "PAYGATE_CHECKOUT_HOLD_SECONDS": str(HOLD)})
    yield svc
    stop(svc)


@pytest.fixture(autouse=True)
def clock(service: Service) -> Iterator[Path]:
    """The service's clock offset file, at 0 before and after each test."""
    assert service.clock_file is not None
    service.clock_file.write_text("0")
    yield service.clock_file
    service.clock_file.write_text("0")


def test_a_checkout_paid_after_its_hold_lapsed_is_sold_though_its_units_went_to_another(
        api: httpx.Client, merchant: dict[str, Any], localstripe: LocalStripe, clock: Path) -> None:
    product, link = in_stock(api, 1, None)
    late = ok(buy(api, link))
    clock.write_text(str(HOLD + 2))
    pay_by_card(api, merchant, localstripe, ok(buy(api, link)))  # the lapsed hold's unit, sold to another
    assert stock_of(api, product) == [0, None]
    assert pay_by_card(api, merchant, localstripe, late)["status"] == "Success"
    assert stock_of(api, product) == [0, None]


def test_a_card_payment_under_way_keeps_the_hold_past_it(api: httpx.Client, merchant: dict[str, Any],
                                                         localstripe: LocalStripe, clock: Path) -> None:
    _, link = in_stock(api, 1, None)
    intent = ok(buy(api, link))
    got = chose_card(api, intent["id"], token=localstripe.tokenize(merchant["provider_a"]["publishable_key"],
                                                                   THREE_D_SECURE))
    assert (got["status"], got["charges"][0]["provider_a_payload"]["status"]) == (
        "RequiresPaymentMethod", "requires_action")
    clock.write_text(str(HOLD + 2))
    fails(buy(api, link), 400, "parameter_invalid", "primary_variant.variant_id")
