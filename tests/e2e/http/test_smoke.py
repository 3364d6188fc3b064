from tests.conftest import fails, ok


def test_create_and_retrieve_a_customer(api):
    created = ok(api.post("/v1/customers", json={"name": "Ann", "email": "ann@example.com"}))
    assert created["id"].startswith("cus_")
    assert ok(api.get(f"/v1/customers/{created['id']}"))["email"] == "ann@example.com"


def test_missing_key_is_unauthorized(anonymous):
    fails(anonymous.get("/v1/customers"), 401, "unauthorized")
