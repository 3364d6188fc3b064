"""Identity hardening: ephemeral tokens are single-use. (The limits of one-time codes, per address and window, are
tests/e2e/http/test_verification_codes.py's: codes asked for through the checkout call and read from SMTP.)"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.conftest import fails, ok
from tests.e2e.http.test_customer_identity import TOKEN_BODY, issue_token, resolve


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
