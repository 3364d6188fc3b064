"""Stubs on the session's gRPC channel (`channel` of tests/conftest.py)."""

from __future__ import annotations

import grpc
import pytest
from paygate.v1 import (
    assets_pb2_grpc,
    customers_pb2_grpc,
    payment_links_pb2_grpc,
    products_pb2_grpc,
    refunds_pb2_grpc,
    subscriptions_pb2_grpc,
)


@pytest.fixture
def customers(channel: grpc.Channel) -> customers_pb2_grpc.CustomerServiceStub:
    return customers_pb2_grpc.CustomerServiceStub(channel)


@pytest.fixture
def products(channel: grpc.Channel) -> products_pb2_grpc.ProductServiceStub:
    return products_pb2_grpc.ProductServiceStub(channel)


@pytest.fixture
def links(channel: grpc.Channel) -> payment_links_pb2_grpc.PaymentLinkServiceStub:
    return payment_links_pb2_grpc.PaymentLinkServiceStub(channel)


@pytest.fixture
def assets(channel: grpc.Channel) -> assets_pb2_grpc.AssetServiceStub:
    return assets_pb2_grpc.AssetServiceStub(channel)


@pytest.fixture
def refunds(channel: grpc.Channel) -> refunds_pb2_grpc.RefundServiceStub:
    return refunds_pb2_grpc.RefundServiceStub(channel)


@pytest.fixture
def other_auth(other_merchant: dict) -> list[tuple[str, str]]:
    """gRPC metadata carrying another merchant's test secret key."""
    return [("authorization", f"Bearer {other_merchant['test']['secret_key']}")]


@pytest.fixture
def subscriptions(channel: grpc.Channel) -> subscriptions_pb2_grpc.SubscriptionServiceStub:
    return subscriptions_pb2_grpc.SubscriptionServiceStub(channel)
