"""Products and payment links over direct gRPC: creation, `update_mask` semantics of UpdateProduct
(AIP-134, as proto/paygate/v1/products.proto documents it: only masked fields change, `*` replaces the whole
product, no mask updates the populated fields) and the state rules of links."""

from __future__ import annotations

import grpc
from google.protobuf import field_mask_pb2, struct_pb2
from paygate.v1 import payment_links_pb2 as lpb
from paygate.v1 import products_pb2 as pb
from paygate.v1.money_pb2 import Price, VariantPrice

from tests.e2e.grpc.support import fails

INVALID = grpc.StatusCode.INVALID_ARGUMENT
NOT_FOUND = grpc.StatusCode.NOT_FOUND


def _struct(value: dict) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update(value)
    return out


def _simple_product(products, auth, **extra) -> pb.Product:
    fields = {"name": "Mug", "default_currency": "USD", "fixed_price": Price(amount="12.50"),
              "description": "A mug", "image_url": "https://img.example.com/mug.png",
              "metadata": _struct({"sku_family": "mugs"}), "collect_shipping_address": True, **extra}
    return products.CreateProduct(pb.CreateProductRequest(**fields), metadata=auth).product


def _get(products, auth, product_id: str) -> pb.Product:
    return products.GetProduct(pb.GetProductRequest(id=product_id), metadata=auth).product


def _link(links, auth, product: pb.Product) -> lpb.PaymentLink:
    variant = product.variants[0].id
    request = lpb.CreatePaymentLinkRequest(product_id=product.id, default_variant_id=variant,
                                           primary_variant_ids=[variant])
    return links.CreatePaymentLink(request, metadata=auth).payment_link


def _mask(*paths: str) -> field_mask_pb2.FieldMask:
    return field_mask_pb2.FieldMask(paths=list(paths))


def test_create_product_returns_a_simple_product_with_one_variant(products, grpc_auth):
    product = _simple_product(products, grpc_auth)
    assert product.id.startswith("prod_") and product.object == "product"
    assert (product.name, product.default_currency, product.active, product.version) == ("Mug", "USD", True, 1)
    assert product.HasField("fixed_price") and product.fixed_price.amount == "12.50"
    assert len(product.variants) == 1
    variant = product.variants[0]
    assert variant.id.startswith("var_") and not variant.option_values
    assert (variant.price.amount, variant.price.currency) == ("12.50", "USD")
    assert _get(products, grpc_auth, product.id) == product


def test_create_product_with_options_has_one_variant_per_combination(products, grpc_auth):
    request = pb.CreateProductRequest(
        name="Shirt", default_currency="USD",
        options=[pb.ProductOption(name="Size", values=[pb.OptionValue(value="S"), pb.OptionValue(value="L")])],
        variants=[pb.Variant(option_values={"Size": "S"}, price=VariantPrice(amount="10")),
                  pb.Variant(option_values={"Size": "L"}, price=VariantPrice(amount="12"))])
    product = products.CreateProduct(request, metadata=grpc_auth).product
    assert not product.HasField("fixed_price")
    assert [(v.option_values["Size"], v.price.amount, v.title) for v in product.variants] == [
        ("S", "10", "S"), ("L", "12", "L")]


def test_create_product_without_name_is_parameter_missing(products, grpc_auth):
    fails(lambda: products.CreateProduct(pb.CreateProductRequest(default_currency="USD"), metadata=grpc_auth),
          INVALID, "parameter_missing", field="name")


def test_create_payment_link_is_active_and_sells_the_variant(products, links, grpc_auth):
    product = _simple_product(products, grpc_auth)
    link = _link(links, grpc_auth, product)
    assert link.id.startswith("pl_") and link.object == "payment_link" and link.active
    assert link.url == f"https://checkout.test/{link.id}"
    assert (link.product.id, link.product.name) == (product.id, "Mug")
    assert [(v.variant_id, v.is_primary, v.variant.price.amount) for v in link.primary_variants] == [
        (product.variants[0].id, True, "12.50")]
    got = links.GetPaymentLink(lpb.GetPaymentLinkRequest(id=link.id), metadata=grpc_auth).payment_link
    assert (got.price_range.min, got.price_range.max, got.price_range.currency) == ("12.50", "12.50", "USD")


def test_payment_link_for_another_merchants_product_is_invalid(products, links, grpc_auth, other_auth):
    theirs = _simple_product(products, other_auth)
    request = lpb.CreatePaymentLinkRequest(product_id=theirs.id, default_variant_id=theirs.variants[0].id,
                                           primary_variant_ids=[theirs.variants[0].id])
    fails(lambda: links.CreatePaymentLink(request, metadata=grpc_auth), INVALID, "parameter_invalid",
          field="product_id")


def test_update_mask_changes_only_the_masked_fields(products, grpc_auth):
    product = _simple_product(products, grpc_auth)
    request = pb.UpdateProductRequest(id=product.id, update_mask=_mask("name"), name="Big mug",
                                      description="not masked", image_url="https://img.example.com/other.png",
                                      fixed_price=Price(amount="99"))
    updated = products.UpdateProduct(request, metadata=grpc_auth).product
    assert updated.name == "Big mug"
    assert (updated.description, updated.image_url, updated.fixed_price.amount) == (
        "A mug", "https://img.example.com/mug.png", "12.50")
    assert dict(updated.metadata) == {"sku_family": "mugs"} and updated.collect_shipping_address
    assert [v.id for v in updated.variants] == [product.variants[0].id]
    assert _get(products, grpc_auth, product.id) == updated


def test_masked_field_absent_from_the_request_is_cleared(products, grpc_auth):
    product = _simple_product(products, grpc_auth)
    request = pb.UpdateProductRequest(id=product.id, update_mask=_mask("description", "metadata"))
    updated = products.UpdateProduct(request, metadata=grpc_auth).product
    assert (updated.description, dict(updated.metadata)) == ("", {})
    assert (updated.name, updated.image_url) == ("Mug", "https://img.example.com/mug.png")


def test_update_mask_on_fixed_price_reprices_the_same_variant(products, grpc_auth):
    product = _simple_product(products, grpc_auth)
    request = pb.UpdateProductRequest(id=product.id, update_mask=_mask("fixed_price"), fixed_price=Price(amount="20"))
    updated = products.UpdateProduct(request, metadata=grpc_auth).product
    assert updated.fixed_price.amount == "20"
    assert [(v.id, v.price.amount) for v in updated.variants] == [(product.variants[0].id, "20")]
    assert updated.name == "Mug"


def test_star_update_mask_replaces_the_whole_product(products, grpc_auth):
    product = _simple_product(products, grpc_auth)
    request = pb.UpdateProductRequest(id=product.id, update_mask=_mask("*"), name="Plain mug", default_currency="USD",
                                      fixed_price=Price(amount="15"), variants=[pb.Variant(id=product.variants[0].id)])
    updated = products.UpdateProduct(request, metadata=grpc_auth).product
    assert (updated.name, updated.fixed_price.amount) == ("Plain mug", "15")
    # Everything the whole product left out is now empty or default.
    assert (updated.description, updated.image_url, dict(updated.metadata)) == ("", "", {})
    assert (updated.collect_shipping_address, updated.active) == (False, True)
    assert [(v.id, v.price.amount) for v in updated.variants] == [(product.variants[0].id, "15")]


def test_star_update_mask_without_a_name_is_parameter_missing(products, grpc_auth):
    product = _simple_product(products, grpc_auth)
    request = pb.UpdateProductRequest(id=product.id, update_mask=_mask("*"), default_currency="USD",
                                      fixed_price=Price(amount="15"))
    fails(lambda: products.UpdateProduct(request, metadata=grpc_auth), INVALID, "parameter_missing", field="name")
    assert _get(products, grpc_auth, product.id) == product


def test_empty_update_mask_updates_only_the_populated_fields(products, grpc_auth):
    product = _simple_product(products, grpc_auth)
    request = pb.UpdateProductRequest(id=product.id, name="Renamed mug", fixed_price=Price(amount="14"))
    updated = products.UpdateProduct(request, metadata=grpc_auth).product
    assert (updated.name, updated.fixed_price.amount, updated.version) == ("Renamed mug", "14", 2)
    assert (updated.description, updated.image_url, updated.default_currency) == (
        "A mug", "https://img.example.com/mug.png", "USD")
    assert dict(updated.metadata) == {"sku_family": "mugs"} and updated.collect_shipping_address
    assert [(v.id, v.price.amount) for v in updated.variants] == [(product.variants[0].id, "14")]


def test_update_increments_the_version(products, grpc_auth):
    product = _simple_product(products, grpc_auth)
    for expected in (2, 3):
        request = pb.UpdateProductRequest(id=product.id, update_mask=_mask("name"), name=f"Mug v{expected}")
        assert products.UpdateProduct(request, metadata=grpc_auth).product.version == expected


def test_update_mask_with_a_path_that_is_not_updatable_is_invalid(products, grpc_auth):
    product = _simple_product(products, grpc_auth)
    for path in ("version", "id", "no_such_field"):
        request = pb.UpdateProductRequest(id=product.id, update_mask=_mask(path))
        fails(lambda request=request: products.UpdateProduct(request, metadata=grpc_auth),
              INVALID, "parameter_invalid", field="update_mask")
    assert _get(products, grpc_auth, product.id).version == 1


def test_another_merchants_product_is_not_found(products, grpc_auth, other_auth):
    theirs = _simple_product(products, other_auth)
    fails(lambda: _get(products, grpc_auth, theirs.id), NOT_FOUND, "product_not_found")
    request = pb.UpdateProductRequest(id=theirs.id, update_mask=_mask("name"), name="Mine")
    fails(lambda: products.UpdateProduct(request, metadata=grpc_auth), NOT_FOUND, "product_not_found")
    fails(lambda: products.DeleteProduct(pb.DeleteProductRequest(id=theirs.id), metadata=grpc_auth),
          NOT_FOUND, "product_not_found")


def test_test_key_on_the_merchants_live_product_is_permission_denied(products, grpc_auth, merchant):
    live = [("authorization", f"Bearer {merchant['live']['secret_key']}")]
    product = _simple_product(products, live)
    fails(lambda: _get(products, grpc_auth, product.id), grpc.StatusCode.PERMISSION_DENIED, "forbidden")


def test_test_key_on_the_merchants_live_payment_link_is_permission_denied(products, links, grpc_auth, merchant):
    live = [("authorization", f"Bearer {merchant['live']['secret_key']}")]
    link = _link(links, live, _simple_product(products, live))
    fails(lambda: links.GetPaymentLink(lpb.GetPaymentLinkRequest(id=link.id), metadata=grpc_auth),
          grpc.StatusCode.PERMISSION_DENIED, "forbidden")


def test_list_products_page_size_above_50_is_invalid(products, grpc_auth):
    fails(lambda: products.ListProducts(pb.ListProductsRequest(page_size=51), metadata=grpc_auth),
          INVALID, "parameter_invalid", field="page_size")


def test_delete_active_payment_link_is_aborted(products, links, grpc_auth):
    link = _link(links, grpc_auth, _simple_product(products, grpc_auth))
    fails(lambda: links.DeletePaymentLink(lpb.DeletePaymentLinkRequest(id=link.id), metadata=grpc_auth),
          grpc.StatusCode.ABORTED, "payment_link_active")
    assert links.GetPaymentLink(lpb.GetPaymentLinkRequest(id=link.id), metadata=grpc_auth).payment_link.active


def test_deactivated_payment_link_can_be_deleted(products, links, grpc_auth):
    link = _link(links, grpc_auth, _simple_product(products, grpc_auth))
    updated = links.UpdatePaymentLink(lpb.UpdatePaymentLinkRequest(id=link.id, active=False), metadata=grpc_auth)
    assert (updated.id, updated.active) == (link.id, False)
    links.DeletePaymentLink(lpb.DeletePaymentLinkRequest(id=link.id), metadata=grpc_auth)
    fails(lambda: links.GetPaymentLink(lpb.GetPaymentLinkRequest(id=link.id), metadata=grpc_auth),
          NOT_FOUND, "payment_link_not_found")


def test_payment_link_variant_configuration_cannot_change(products, links, grpc_auth):
    product = _simple_product(products, grpc_auth)
    link = _link(links, grpc_auth, product)
    request = lpb.UpdatePaymentLinkRequest(id=link.id, active=True, default_variant_id=product.variants[0].id)
    fails(lambda: links.UpdatePaymentLink(request, metadata=grpc_auth), INVALID, "parameter_invalid",
          field="default_variant_id")


def test_update_payment_link_without_active_is_parameter_missing(products, links, grpc_auth):
    link = _link(links, grpc_auth, _simple_product(products, grpc_auth))
    fails(lambda: links.UpdatePaymentLink(lpb.UpdatePaymentLinkRequest(id=link.id), metadata=grpc_auth),
          INVALID, "parameter_missing", field="active")


def test_another_merchants_payment_link_is_not_found(products, links, grpc_auth, other_auth):
    theirs = _link(links, other_auth, _simple_product(products, other_auth))
    fails(lambda: links.GetPaymentLink(lpb.GetPaymentLinkRequest(id=theirs.id), metadata=grpc_auth),
          NOT_FOUND, "payment_link_not_found")
    fails(lambda: links.DeletePaymentLink(lpb.DeletePaymentLinkRequest(id=theirs.id), metadata=grpc_auth),
          NOT_FOUND, "payment_link_not_found")


def test_product_sold_by_a_payment_link_cannot_be_deleted(products, links, grpc_auth):
    product = _simple_product(products, grpc_auth)
    _link(links, grpc_auth, product)
    fails(lambda: products.DeleteProduct(pb.DeleteProductRequest(id=product.id), metadata=grpc_auth),
          grpc.StatusCode.ABORTED, "product_in_use")
    assert _get(products, grpc_auth, product.id).id == product.id
