import random

from server.webhooks import retry


def test_the_delay_doubles_from_30_seconds_within_10_percent():
    rand = random.Random(1)
    for attempt, nominal in ((1, 30), (2, 60), (3, 120), (4, 240)):
        for _ in range(50):
            assert nominal * 0.9 - 1 <= retry.delay(attempt, rand) <= nominal * 1.1 + 1


def test_the_delay_is_capped_at_6_hours():
    assert retry.delay(40, random.Random(2)) <= retry.CAP_SECONDS * 1.1


def test_the_jitter_spreads_retries():
    rand = random.Random(3)
    assert len({retry.delay(5, rand) for _ in range(20)}) > 5


def test_the_next_attempt_is_now_plus_the_delay():
    assert retry.next_attempt_at(1, 1_000, 1_000, random.Random(4)) == 1_000 + retry.delay(1, random.Random(4))


def test_no_attempt_is_scheduled_beyond_3_days_after_the_first():
    start = 1_000
    assert retry.next_attempt_at(30, start + retry.WINDOW_SECONDS - 10, start) is None


def test_a_failing_receiver_is_tried_for_3_days_then_given_up():
    rand = random.Random(5)
    start = now = 0
    attempts = 1
    while (nxt := retry.next_attempt_at(attempts, now, start, rand)) is not None:
        now, attempts = nxt, attempts + 1
    assert retry.WINDOW_SECONDS - retry.CAP_SECONDS * 1.1 <= now <= retry.WINDOW_SECONDS
    assert 15 <= attempts <= 25
