"""The limits that keep one slow endpoint from stalling the others or being sent twice."""

import math

import pytest

from server.config import ConfigError, load_settings
from server.webhooks import delivery


@pytest.mark.parametrize("timeout", [0.5, 10.0, 60.0])
def test_a_claim_outlives_the_worst_batch(timeout):
    worst = math.ceil(delivery.ENDPOINT_BACKLOG / delivery.PER_ENDPOINT_CONCURRENCY) * timeout
    assert delivery.lease_seconds(timeout) > worst


def test_private_targets_are_refused_unless_the_operator_allows_them():
    assert load_settings({}).webhooks.allow_private_targets is False
    assert load_settings({"PAYGATE_WEBHOOK_ALLOW_PRIVATE": "true"}).webhooks.allow_private_targets is True


def test_the_attempt_deadline_is_configurable_and_bounded():
    assert load_settings({}).webhooks.timeout_seconds == 10.0
    assert load_settings({"PAYGATE_WEBHOOK_TIMEOUT_SECONDS": "2.5"}).webhooks.timeout_seconds == 2.5
    with pytest.raises(ConfigError, match="timeout_seconds"):
        load_settings({"PAYGATE_WEBHOOK_TIMEOUT_SECONDS": "0"})


def test_a_bad_allow_private_value_is_a_one_line_error():
    with pytest.raises(ConfigError, match="allow_private_targets"):
        load_settings({"PAYGATE_WEBHOOK_ALLOW_PRIVATE": "maybe"})
