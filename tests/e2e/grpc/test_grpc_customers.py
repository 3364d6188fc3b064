"""Customers over direct gRPC: the same rules and error codes as the /v1 JSON facade (DESIGN.md §2, §3, §11, §12)."""

from __future__ import annotations

import grpc
from google.protobuf import struct_pb2
from paygate.v1 import customers_pb2 as pb

from tests.conftest import basic, ok
from tests.e2e.grpc.support import fails

NOT_FOUND = grpc.StatusCode.NOT_FOUND
INVALID = grpc.StatusCode.INVALID_ARGUMENT


def _create(customers, auth, **fields) -> pb.Customer:
    return customers.CreateCustomer(pb.CreateCustomerRequest(**fields), metadata=auth).customer


def test_create_customer_returns_the_new_customer(customers, grpc_auth):
    metadata = struct_pb2.Struct()
    metadata.update({"tier": "gold"})
    customer = _create(customers, grpc_auth, name="Ann", email="ann@example.com", phone="+4915112345678",
                       description="first", uuid="u-1", metadata=metadata)
    assert customer.id.startswith("cus_") and len(customer.id) == len("cus_") + 24
    assert customer.object == "customer"
    assert (customer.name, customer.email, customer.phone, customer.description, customer.uuid) == (
        "Ann", "ann@example.com", "+4915112345678", "first", "u-1")
    assert dict(customer.metadata) == {"tier": "gold"}
    assert customer.created > 0 and customer.updated == customer.created
    assert (customer.total_payment, customer.total_refund, customer.total_expense) == ("0", "0", "0")


def test_get_customer_returns_the_stored_customer(customers, grpc_auth):
    created = _create(customers, grpc_auth, name="Bob", email="bob@example.com")
    got = customers.GetCustomer(pb.GetCustomerRequest(id=created.id), metadata=grpc_auth).customer
    assert got == created


def test_update_customer_changes_only_the_fields_given(customers, grpc_auth):
    created = _create(customers, grpc_auth, name="Carl", email="carl@example.com", description="keep me")
    updated = customers.UpdateCustomer(pb.UpdateCustomerRequest(id=created.id, name="Carla"),
                                       metadata=grpc_auth).customer
    assert updated.name == "Carla"
    assert (updated.email, updated.description) == ("carl@example.com", "keep me")
    assert updated.updated >= created.updated
    assert customers.GetCustomer(pb.GetCustomerRequest(id=created.id), metadata=grpc_auth).customer.name == "Carla"


def test_update_customer_with_an_empty_string_clears_the_field(customers, grpc_auth):
    created = _create(customers, grpc_auth, name="Dora", description="to clear")
    updated = customers.UpdateCustomer(pb.UpdateCustomerRequest(id=created.id, description=""),
                                       metadata=grpc_auth).customer
    assert (updated.name, updated.description) == ("Dora", "")


def test_list_customers_returns_only_the_merchants_customers(customers, grpc_auth, other_auth):
    mine = {_create(customers, grpc_auth, name=f"c{i}").id for i in range(3)}
    _create(customers, other_auth, name="not mine")
    listed = customers.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth)
    assert {c.id for c in listed.customers} == mine
    assert (listed.total, listed.page, listed.page_size) == (3, 0, 10)


def test_list_customers_pages_newest_first(customers, grpc_auth):
    made = [_create(customers, grpc_auth, name=f"c{i}").id for i in range(3)]
    first = customers.ListCustomers(pb.ListCustomersRequest(page=0, page_size=2), metadata=grpc_auth)
    second = customers.ListCustomers(pb.ListCustomersRequest(page=1, page_size=2), metadata=grpc_auth)
    assert (len(first.customers), len(second.customers), first.total, second.total) == (2, 1, 3, 3)
    ordered = [*first.customers, *second.customers]
    # By id, not by `created`: the three share a whole second, so a timestamp order check could not fail.
    assert [c.id for c in ordered] == made[::-1]


def test_list_customers_filters_by_email(customers, grpc_auth):
    wanted = _create(customers, grpc_auth, email="find@example.com")
    _create(customers, grpc_auth, email="other@example.com")
    listed = customers.ListCustomers(pb.ListCustomersRequest(email="find@example.com"), metadata=grpc_auth)
    assert [c.id for c in listed.customers] == [wanted.id] and listed.total == 1


def test_deleted_customer_is_not_found_and_not_listed(customers, grpc_auth):
    created = _create(customers, grpc_auth, name="Gone")
    assert customers.DeleteCustomer(pb.DeleteCustomerRequest(id=created.id), metadata=grpc_auth) == \
        pb.DeleteCustomerResponse()
    fails(lambda: customers.GetCustomer(pb.GetCustomerRequest(id=created.id), metadata=grpc_auth),
          NOT_FOUND, "customer_not_found")
    assert customers.ListCustomers(pb.ListCustomersRequest(), metadata=grpc_auth).total == 0


def test_unknown_customer_id_is_not_found(customers, grpc_auth):
    unknown = "cus_" + "x" * 24
    fails(lambda: customers.GetCustomer(pb.GetCustomerRequest(id=unknown), metadata=grpc_auth),
          NOT_FOUND, "customer_not_found")
    fails(lambda: customers.UpdateCustomer(pb.UpdateCustomerRequest(id=unknown, name="x"), metadata=grpc_auth),
          NOT_FOUND, "customer_not_found")
    fails(lambda: customers.DeleteCustomer(pb.DeleteCustomerRequest(id=unknown), metadata=grpc_auth),
          NOT_FOUND, "customer_not_found")


def test_another_merchants_customer_is_not_found(customers, grpc_auth, other_auth):
    theirs = _create(customers, other_auth, name="Theirs", email="theirs@example.com")
    err = fails(lambda: customers.GetCustomer(pb.GetCustomerRequest(id=theirs.id), metadata=grpc_auth),
                NOT_FOUND, "customer_not_found")
    assert "theirs@example.com" not in err.details()
    fails(lambda: customers.UpdateCustomer(pb.UpdateCustomerRequest(id=theirs.id, name="Mine now"),
                                           metadata=grpc_auth), NOT_FOUND, "customer_not_found")
    fails(lambda: customers.DeleteCustomer(pb.DeleteCustomerRequest(id=theirs.id), metadata=grpc_auth),
          NOT_FOUND, "customer_not_found")
    assert customers.GetCustomer(pb.GetCustomerRequest(id=theirs.id), metadata=other_auth).customer.name == "Theirs"


def test_test_mode_customer_is_not_found_with_the_live_key(customers, grpc_auth, merchant):
    created = _create(customers, grpc_auth, name="Test only")
    live = [("authorization", f"Bearer {merchant['live']['secret_key']}")]
    fails(lambda: customers.GetCustomer(pb.GetCustomerRequest(id=created.id), metadata=live),
          NOT_FOUND, "customer_not_found")


def test_test_key_on_the_merchants_live_customer_is_permission_denied(customers, grpc_auth, merchant):
    live = [("authorization", f"Bearer {merchant['live']['secret_key']}")]
    created = _create(customers, live, name="Live only")
    fails(lambda: customers.GetCustomer(pb.GetCustomerRequest(id=created.id), metadata=grpc_auth),
          grpc.StatusCode.PERMISSION_DENIED, "forbidden")


def test_test_key_on_another_merchants_live_customer_is_not_found(customers, grpc_auth, other_merchant):
    theirs = [("authorization", f"Bearer {other_merchant['live']['secret_key']}")]
    created = _create(customers, theirs, name="Their live customer")
    fails(lambda: customers.GetCustomer(pb.GetCustomerRequest(id=created.id), metadata=grpc_auth),
          NOT_FOUND, "customer_not_found")


def test_bad_email_is_invalid_argument_naming_the_field(customers, grpc_auth):
    fails(lambda: _create(customers, grpc_auth, email="not-an-email"), INVALID, "parameter_invalid", field="email")


def test_bad_email_on_update_is_invalid_argument_naming_the_field(customers, grpc_auth):
    created = _create(customers, grpc_auth, email="ok@example.com")
    fails(lambda: customers.UpdateCustomer(pb.UpdateCustomerRequest(id=created.id, email="a@b"), metadata=grpc_auth),
          INVALID, "parameter_invalid", field="email")
    got = customers.GetCustomer(pb.GetCustomerRequest(id=created.id), metadata=grpc_auth).customer
    assert got.email == "ok@example.com"


def test_missing_id_is_parameter_missing(customers, grpc_auth):
    fails(lambda: customers.GetCustomer(pb.GetCustomerRequest(), metadata=grpc_auth),
          INVALID, "parameter_missing", field="id")


def test_no_credentials_is_unauthenticated(customers):
    fails(lambda: customers.ListCustomers(pb.ListCustomersRequest()), grpc.StatusCode.UNAUTHENTICATED,
          "unauthorized")


def test_wrong_key_is_unauthenticated(customers):
    wrong = [("authorization", "Bearer sk_test_" + "0" * 24)]
    fails(lambda: customers.ListCustomers(pb.ListCustomersRequest(), metadata=wrong),
          grpc.StatusCode.UNAUTHENTICATED, "unauthorized")


def test_unknown_authorization_scheme_is_unauthenticated(customers, merchant):
    token = [("authorization", f"Token {merchant['test']['secret_key']}")]
    fails(lambda: customers.ListCustomers(pb.ListCustomersRequest(), metadata=token),
          grpc.StatusCode.UNAUTHENTICATED, "unauthorized")


def test_public_key_is_permission_denied(customers, merchant):
    public = [("authorization", f"Bearer {merchant['test']['public_key']}")]
    fails(lambda: customers.ListCustomers(pb.ListCustomersRequest(), metadata=public),
          grpc.StatusCode.PERMISSION_DENIED, "forbidden")


def test_basic_credentials_are_accepted(customers, merchant):
    auth = [("authorization", basic(merchant["test"]["secret_key"]))]
    created = _create(customers, auth, name="Basic")
    assert customers.GetCustomer(pb.GetCustomerRequest(id=created.id), metadata=auth).customer.name == "Basic"


def test_page_size_out_of_range_is_invalid_argument(customers, grpc_auth):
    for size in (0, -1, 101):
        fails(lambda size=size: customers.ListCustomers(pb.ListCustomersRequest(page_size=size), metadata=grpc_auth),
              INVALID, "parameter_invalid", field="page_size")


def test_negative_page_is_invalid_argument(customers, grpc_auth):
    fails(lambda: customers.ListCustomers(pb.ListCustomersRequest(page=-1), metadata=grpc_auth),
          INVALID, "parameter_invalid", field="page")


def test_customer_created_over_http_reads_the_same_over_grpc(api, customers, grpc_auth):
    created = ok(api.post("/v1/customers", json={"name": "Http", "email": "http@example.com"}))
    got = customers.GetCustomer(pb.GetCustomerRequest(id=created["id"]), metadata=grpc_auth).customer
    assert (got.id, got.name, got.email, got.created) == (created["id"], "Http", "http@example.com",
                                                          created["created"])


def test_customer_created_over_grpc_reads_the_same_over_http(api, customers, grpc_auth):
    created = _create(customers, grpc_auth, name="Grpc", email="grpc@example.com")
    got = ok(api.get(f"/v1/customers/{created.id}"))
    assert (got["id"], got["name"], got["email"], got["created"]) == (created.id, "Grpc", "grpc@example.com",
                                                                      created.created)
