"""What every gRPC caller gets from the server itself: health checking, reflection, UNIMPLEMENTED with an
ErrorInfo, idempotency keys in metadata, and anonymous catalogue reads (DESIGN.md §1, §2)."""

from __future__ import annotations

import secrets

import grpc
import paygate.v1 as api
from google.protobuf import descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from paygate.v1 import assets_pb2, subscriptions_pb2
from paygate.v1 import customers_pb2 as pb

from tests.e2e.grpc.support import fails


def _key() -> list[tuple[str, str]]:
    return [("idempotency-key", f"test-{secrets.token_hex(8)}")]


def _replayed(call: grpc.Call) -> bool:
    return dict(call.initial_metadata() or ()).get("idempotent-replayed") == "true"


def test_health_service_answers_serving(channel):
    health = health_pb2_grpc.HealthStub(channel)
    assert health.Check(health_pb2.HealthCheckRequest()).status == health_pb2.HealthCheckResponse.SERVING


def test_health_service_answers_serving_for_each_api_service(channel):
    health = health_pb2_grpc.HealthStub(channel)
    for service in api.services():
        reply = health.Check(health_pb2.HealthCheckRequest(service=service.full_name))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, service.full_name


def test_reflection_lists_every_api_service(channel):
    listed = set(ProtoReflectionDescriptorDatabase(channel).get_services())
    expected = {s.full_name for s in api.services()}
    assert {"paygate.v1.CustomerService", "paygate.v1.ProductService", "paygate.v1.PaymentLinkService",
            "paygate.v1.RefundService"} <= expected
    assert expected <= listed
    assert {"grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"} <= listed


def test_reflection_describes_the_methods_and_messages(channel):
    pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
    service = pool.FindServiceByName("paygate.v1.CustomerService")
    assert {"CreateCustomer", "GetCustomer", "UpdateCustomer", "ListCustomers", "DeleteCustomer"} <= set(
        service.methods_by_name)
    create = service.methods_by_name["CreateCustomer"]
    assert create.input_type.full_name == "paygate.v1.CreateCustomerRequest"
    assert "email" in create.input_type.fields_by_name


def test_list_subscriptions_answers_an_empty_offset_page(subscriptions, grpc_auth):
    page = subscriptions.ListSubscriptions(subscriptions_pb2.ListSubscriptionsRequest(), metadata=grpc_auth)
    assert (page.offset, page.limit, page.total, list(page.data)) == (0, 20, 0, [])


def test_subscriptions_require_credentials(subscriptions):
    fails(lambda: subscriptions.ListSubscriptions(subscriptions_pb2.ListSubscriptionsRequest()),
          grpc.StatusCode.UNAUTHENTICATED,
          "unauthorized")


def test_idempotency_key_replays_the_first_response(customers, grpc_auth):
    metadata = grpc_auth + _key()
    request = pb.CreateCustomerRequest(name="Once", email="once@example.com")
    first, first_call = customers.CreateCustomer.with_call(request, metadata=metadata)
    again, again_call = customers.CreateCustomer.with_call(request, metadata=metadata)
    assert not _replayed(first_call)
    assert _replayed(again_call)
    assert again.customer.id == first.customer.id
    assert again.SerializeToString(deterministic=True) == first.SerializeToString(deterministic=True)
    assert customers.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth).total == 1


def test_idempotency_key_replays_a_refusal(customers, grpc_auth):
    metadata = grpc_auth + _key()
    request = pb.CreateCustomerRequest(email="not-an-email")
    first = fails(lambda: customers.CreateCustomer(request, metadata=metadata),
                  grpc.StatusCode.INVALID_ARGUMENT, "parameter_invalid", field="email")
    again = fails(lambda: customers.CreateCustomer(request, metadata=metadata),
                  grpc.StatusCode.INVALID_ARGUMENT, "parameter_invalid", field="email")
    assert again.details() == first.details()
    assert not _replayed(first) and _replayed(again)


def test_empty_idempotency_key_is_invalid(customers, grpc_auth):
    fails(lambda: customers.CreateCustomer(pb.CreateCustomerRequest(name="x"),
                                           metadata=[*grpc_auth, ("idempotency-key", "")]),
          grpc.StatusCode.INVALID_ARGUMENT, "parameter_invalid", field="Idempotency-Key")


def test_concurrent_retries_with_one_idempotency_key_create_one_customer(customers, grpc_auth):
    metadata = grpc_auth + _key()
    request = pb.CreateCustomerRequest(name="Raced")
    futures = [customers.CreateCustomer.future(request, metadata=metadata) for _ in range(8)]
    ids = set()
    for future in futures:
        try:
            ids.add(future.result().customer.id)
        except grpc.RpcError:
            # A retry that arrives while the first is in flight is told so, never run a second time.
            fails(future.result, grpc.StatusCode.ABORTED, "idempotency_in_progress")
    assert len(ids) == 1
    assert customers.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth).total == 1


def test_idempotency_key_with_a_different_request_is_refused(customers, grpc_auth):
    metadata = grpc_auth + _key()
    customers.CreateCustomer(pb.CreateCustomerRequest(name="First"), metadata=metadata)
    fails(lambda: customers.CreateCustomer(pb.CreateCustomerRequest(name="Second"), metadata=metadata),
          grpc.StatusCode.INVALID_ARGUMENT, "idempotency_key_reused")
    assert [c.name for c in customers.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth).customers] == [
        "First"]


def test_idempotency_key_on_another_rpc_is_refused(customers, grpc_auth):
    metadata = grpc_auth + _key()
    created = customers.CreateCustomer(pb.CreateCustomerRequest(name="First"), metadata=metadata).customer
    fails(lambda: customers.UpdateCustomer(pb.UpdateCustomerRequest(id=created.id, name="Other"), metadata=metadata),
          grpc.StatusCode.INVALID_ARGUMENT, "idempotency_key_reused")


def test_idempotency_keys_are_scoped_to_the_merchant(customers, grpc_auth, other_auth):
    key = _key()
    request = pb.CreateCustomerRequest(name="Same body")
    mine, _ = customers.CreateCustomer.with_call(request, metadata=grpc_auth + key)
    theirs, their_call = customers.CreateCustomer.with_call(request, metadata=other_auth + key)
    assert not _replayed(their_call)
    assert theirs.customer.id != mine.customer.id


def test_list_all_assets_needs_no_credentials(assets):
    listed = assets.ListAllAssets(assets_pb2.ListAllAssetsRequest())
    ids = {a.id for a in listed.assets}
    assert {"USDT-ETH-TEST", "USD"} <= ids
