"""A consolidation's one fee shared among its parts by the inputs each brings, in whole units adding up exactly."""

import pytest

from server.rails.utxo.spend import share_fee


def test_equal_parts_share_equally() -> None:
    assert share_fee(300, [1, 1, 1]) == (100, 100, 100)


def test_shares_follow_the_inputs_each_part_brings() -> None:
    assert share_fee(400, [1, 3]) == (100, 300)


def test_the_remainder_goes_one_unit_each_to_the_first_parts() -> None:
    assert share_fee(283, [1, 1, 1]) == (95, 94, 94)
    assert sum(share_fee(1_000_003, [2, 5, 7, 1])) == 1_000_003


def test_a_part_without_inputs_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one input"):
        share_fee(100, [1, 0])
