"""Identity hardening: ephemeral tokens are single-use, and one-time codes are limited per subject and window
(not only per code), so that asking for a new code does not buy five more guesses."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from server.customers.identity import MAX_CODES_PER_WINDOW, issue_verification_code
from server.errors import RateLimited
from server.rpc.context import Caller
from tests.conftest import fails, ok
from tests.e2e.http.test_customer_identity import TOKEN_BODY, _run_in_db, issue_token, other_code, resolve
from tests.harness import Service


def issue_code(service: Service, merchant: dict[str, Any], subject: str) -> str:
    """A code minted by the identity service itself: these tests are about its own limits (guesses per subject
    across codes, codes per hour), which sit beneath the checkout call's one-code-per-30-s resend throttle
    (tests/e2e/http/test_customer_identity.py asks for codes the shopper's way, through that call and SMTP)."""
    caller = Caller(merchant["merchant_id"], livemode=False, key_kind="secret")
    return _run_in_db(service, lambda s: issue_verification_code(s, caller, "email", subject))  # type: ignore[no-any-return]


def test_an_ephemeral_token_resolves_once(api: httpx.Client) -> None:
    token = issue_token(api, **TOKEN_BODY)
    ok(resolve(api, ephemeral_token=token))
    fails(resolve(api, ephemeral_token=token), 400, "token_expired", "ephemeral_token")


def test_an_anonymous_ephemeral_token_resolves_once(api: httpx.Client) -> None:
    token = issue_token(api)
    ok(resolve(api, ephemeral_token=token))
    fails(resolve(api, ephemeral_token=token), 400, "token_expired", "ephemeral_token")


def test_an_ephemeral_token_resolved_twice_at_once_works_once(api: httpx.Client) -> None:
    token = issue_token(api, **TOKEN_BODY)
    with ThreadPoolExecutor(max_workers=4) as pool:
        responses = list(pool.map(lambda _: resolve(api, ephemeral_token=token), range(4)))
    assert sorted(r.status_code for r in responses) == [200, 400, 400, 400], [r.json() for r in responses]


def test_a_refused_resolution_leaves_the_ephemeral_token_usable(api: httpx.Client) -> None:
    token = issue_token(api, **TOKEN_BODY)
    fails(resolve(api, ephemeral_token=token, refresh_token=True, payment_link_id="pl_" + "0" * 24), 400,
          "parameter_invalid", "payment_link_id")
    ok(resolve(api, ephemeral_token=token))


def test_wrong_codes_are_limited_per_email_across_codes(service: Service, merchant: dict[str, Any],
                                                        api: httpx.Client) -> None:
    first = issue_code(service, merchant, "ann@example.com")
    for _ in range(5):
        fails(resolve(api, email="ann@example.com", verification_code=other_code(first)), 400,
              "verification_code_invalid", "verification_code")
    second = issue_code(service, merchant, "ann@example.com")
    refused = resolve(api, email="ann@example.com", verification_code=second)
    fails(refused, 429, "rate_limited", "verification_code")
    assert int(refused.headers["Retry-After"]) > 0
    assert ok(api.get("/v1/customers"))["total"] == 0


def test_the_limit_on_wrong_codes_is_per_email(service: Service, merchant: dict[str, Any], api: httpx.Client) -> None:
    first = issue_code(service, merchant, "ann@example.com")
    for _ in range(5):
        fails(resolve(api, email="ann@example.com", verification_code=other_code(first)), 400,
              "verification_code_invalid", "verification_code")
    code = issue_code(service, merchant, "bob@example.com")
    ok(resolve(api, email="bob@example.com", verification_code=code))


def test_codes_issued_per_email_are_limited_per_hour(service: Service, merchant: dict[str, Any]) -> None:
    for _ in range(MAX_CODES_PER_WINDOW):
        issue_code(service, merchant, "ann@example.com")
    with pytest.raises(RateLimited):
        issue_code(service, merchant, "Ann@Example.com")
    issue_code(service, merchant, "bob@example.com")
