from server.webhooks import sign, verify_signature

SECRET = "whsec_test"
BODY = b'{"id":"evt_1","object":"event"}'


def test_a_signed_body_verifies():
    assert verify_signature(BODY, sign(BODY, [SECRET], 1_000), SECRET, now=1_000)


def test_a_str_payload_verifies_like_its_bytes():
    assert verify_signature(BODY.decode(), sign(BODY, [SECRET], 1_000), SECRET, now=1_000)


def test_a_changed_body_does_not_verify():
    assert not verify_signature(BODY + b" ", sign(BODY, [SECRET], 1_000), SECRET, now=1_000)


def test_another_secret_does_not_verify():
    assert not verify_signature(BODY, sign(BODY, [SECRET], 1_000), "whsec_other", now=1_000)


def test_a_timestamp_outside_the_tolerance_does_not_verify():
    header = sign(BODY, [SECRET], 1_000)
    assert verify_signature(BODY, header, SECRET, now=1_300)
    assert not verify_signature(BODY, header, SECRET, now=1_301)
    assert verify_signature(BODY, header, SECRET, tolerance=0, now=99_999)


def test_any_of_several_signatures_verifies_during_a_rotation():
    header = sign(BODY, ["whsec_new", "whsec_old"], 1_000)
    assert header.count("v1=") == 2
    assert verify_signature(BODY, header, "whsec_new", now=1_000)
    assert verify_signature(BODY, header, "whsec_old", now=1_000)


def test_the_header_has_the_public_v1_shape():
    t, v1 = sign(BODY, [SECRET], 1_000).split(",")
    assert t == "t=1000" and v1.startswith("v1=") and len(v1) == 3 + 64


def test_malformed_headers_do_not_verify():
    for header in ("", "t=abc,v1=00", "v1=00", "t=1000", "garbage"):
        assert not verify_signature(BODY, header, SECRET, now=1_000)
