"""TLS on the gRPC port and on the facade's channel, and reflection off in live deployments (DESIGN.md §1, §3).

TLS does not depend on the database, so these services run on SQLite only.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import grpc
import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from server.config import load_settings
from tests.conftest import ok
from tests.harness import TEST_MNEMONIC, TLS, Service, free_port, launch, paygate, start, stop


@dataclass(frozen=True)
class Pki:
    ca: Path
    cert: Path
    key: Path
    client_cert: Path
    client_key: Path


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def make_pki(directory: Path) -> Pki:
    """A self-signed CA, and a server and a client certificate it signed (for 127.0.0.1 and localhost)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(_name("paygate test CA")).issuer_name(_name("paygate test CA"))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    directory.mkdir(parents=True, exist_ok=True)
    pki = Pki(directory / "ca.pem", directory / "server.pem", directory / "server.key", directory / "client.pem",
              directory / "client.key")
    pki.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    sans = x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    for name, cert_path, key_path in (("localhost", pki.cert, pki.key), ("paygate facade", pki.client_cert,
                                                                         pki.client_key)):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (x509.CertificateBuilder().subject_name(_name(name)).issuer_name(ca.subject)
                .public_key(key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(sans, critical=False).sign(ca_key, hashes.SHA256()))
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    return pki


def _tls_env(pki: Pki) -> dict[str, str]:
    return {"PAYGATE_GRPC_TLS_CERT": str(pki.cert), "PAYGATE_GRPC_TLS_KEY": str(pki.key),
            "PAYGATE_GRPC_TLS_CA": str(pki.ca)}


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(Path(tmp_path_factory.mktemp("pki")))


@pytest.fixture(scope="module")
def tls_service(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    # PAYGATE_GRPC_REFLECTION empty: the default rule, with the harness's wallet mnemonic (a live deployment).
    svc = start("sqlite", Path(tmp_path_factory.mktemp("tls")),
                extra_env={**_tls_env(pki), "PAYGATE_GRPC_REFLECTION": ""})
    yield svc
    stop(svc)


def _health(channel: grpc.Channel) -> int:
    return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5).status


def test_tls_grpc_port_answers_a_tls_client(tls_service: Service, pki: Pki) -> None:
    credentials = grpc.ssl_channel_credentials(root_certificates=pki.ca.read_bytes())
    with grpc.secure_channel(tls_service.grpc_addr, credentials) as channel:
        assert _health(channel) == health_pb2.HealthCheckResponse.SERVING


def test_tls_grpc_port_refuses_a_plaintext_client(tls_service: Service) -> None:
    with grpc.insecure_channel(tls_service.grpc_addr) as channel, pytest.raises(grpc.RpcError) as caught:
        _health(channel)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE


def test_facade_in_the_same_process_reaches_its_tls_grpc_server(tls_service: Service) -> None:
    merchant = tls_service.create_merchant()
    with httpx.Client(base_url=tls_service.http_url, auth=httpx.BasicAuth(merchant["test"]["secret_key"], ""),
                      verify=TLS) as api:
        assert ok(api.post("/v1/customers", json={"name": "Over TLS"}))["name"] == "Over TLS"


def test_reflection_is_off_by_default_when_a_wallet_mnemonic_is_configured(tls_service: Service, pki: Pki) -> None:
    credentials = grpc.ssl_channel_credentials(root_certificates=pki.ca.read_bytes())
    with grpc.secure_channel(tls_service.grpc_addr, credentials) as channel, pytest.raises(grpc.RpcError) as caught:
        ProtoReflectionDescriptorDatabase(channel).get_services()
    assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_reflection_listing_is_refused_when_set_off(tmp_path: Path) -> None:
    svc = start("sqlite", tmp_path, extra_env={"PAYGATE_GRPC_REFLECTION": "false"})
    try:
        with grpc.insecure_channel(svc.grpc_addr) as channel, pytest.raises(grpc.RpcError) as caught:
            ProtoReflectionDescriptorDatabase(channel).get_services()
        assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED
    finally:
        stop(svc)


def test_reflection_default_is_on_without_live_secrets_and_off_with_them() -> None:
    assert load_settings({}).grpc_reflection is True
    assert load_settings({"PAYGATE_WALLET_MNEMONIC": TEST_MNEMONIC}).grpc_reflection is False
    assert load_settings({"PAYGATE_SECRET_KEY": "x" * 32}).grpc_reflection is False
    assert load_settings({"PAYGATE_WALLET_MNEMONIC": TEST_MNEMONIC,
                          "PAYGATE_GRPC_REFLECTION": "true"}).grpc_reflection is True


def _wait_for_port(addr: str, process: subprocess.Popen[bytes], log: Path) -> None:
    host, _, port = addr.rpartition(":")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        with socket.socket() as s:
            if s.connect_ex((host, int(port))) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"gRPC did not listen: {log.read_text()}")


def test_only_http_facade_talks_tls_to_an_only_grpc_server(tls_service: Service, tmp_path: Path) -> None:
    # A gRPC server alone (TLS on, the TLS service's database), then a facade alone whose channel trusts the CA.
    grpc_env = {**tls_service.env, "PAYGATE_GRPC_ADDR": f"127.0.0.1:{free_port()}"}
    grpc_log = tmp_path / "grpc.log"
    server = subprocess.Popen([sys.executable, "-m", "server.boot.cli", "serve", "--only", "grpc"], env=grpc_env,
                              cwd=tls_service.workdir, stdout=grpc_log.open("ab"), stderr=subprocess.STDOUT)
    try:
        _wait_for_port(grpc_env["PAYGATE_GRPC_ADDR"], server, grpc_log)
        http_env = {k: v for k, v in grpc_env.items() if k not in ("PAYGATE_GRPC_TLS_CERT", "PAYGATE_GRPC_TLS_KEY")}
        http_env["PAYGATE_HTTP_ADDR"] = f"127.0.0.1:{free_port()}"
        facade = replace(tls_service, env=http_env, http_url=f"http://{http_env['PAYGATE_HTTP_ADDR']}",
                         grpc_addr=grpc_env["PAYGATE_GRPC_ADDR"], workdir=tmp_path, process=None)
        launch(facade, ("http",))  # waits for /healthz, which asks the gRPC server over TLS
        try:
            merchant = tls_service.create_merchant()
            with httpx.Client(base_url=facade.http_url,
                              auth=httpx.BasicAuth(merchant["test"]["secret_key"], ""), verify=TLS) as api:
                assert ok(api.post("/v1/customers", json={"name": "Far away"}))["name"] == "Far away"
        finally:
            assert facade.process is not None
            facade.process.terminate()
            facade.process.wait(timeout=15)
    finally:
        server.terminate()
        server.wait(timeout=15)


def test_mutual_tls_admits_the_facade_with_its_client_certificate_and_refuses_a_client_without_one(
        pki: Pki, tmp_path: Path) -> None:
    env = {**_tls_env(pki), "PAYGATE_GRPC_TLS_CLIENT_CA": str(pki.ca),
           "PAYGATE_GRPC_TLS_CLIENT_CERT": str(pki.client_cert), "PAYGATE_GRPC_TLS_CLIENT_KEY": str(pki.client_key)}
    svc = start("sqlite", tmp_path, extra_env=env)  # healthy: its facade got through with the client certificate
    try:
        merchant = svc.create_merchant()
        with httpx.Client(base_url=svc.http_url, auth=httpx.BasicAuth(merchant["test"]["secret_key"], ""),
                          verify=TLS) as api:
            ok(api.get("/v1/customers"))
        anonymous_tls = grpc.ssl_channel_credentials(root_certificates=pki.ca.read_bytes())
        with grpc.secure_channel(svc.grpc_addr, anonymous_tls) as channel, pytest.raises(grpc.RpcError) as caught:
            _health(channel)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        with_cert = grpc.ssl_channel_credentials(pki.ca.read_bytes(), pki.client_key.read_bytes(),
                                                 pki.client_cert.read_bytes())
        with grpc.secure_channel(svc.grpc_addr, with_cert) as channel:
            assert _health(channel) == health_pb2.HealthCheckResponse.SERVING
    finally:
        stop(svc)


def test_a_tls_key_without_its_certificate_stops_start_up_with_one_line(pki: Pki, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    env.update(PAYGATE_DATABASE_URL=f"sqlite:///{tmp_path / 'p.db'}", PAYGATE_GRPC_TLS_KEY=str(pki.key),
               PYTHONPATH=str(Path(__file__).parents[3]))
    done = paygate(env, tmp_path, "serve", timeout=30)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "grpc_tls_cert" in lines[0], done.stderr


def test_a_tls_certificate_that_is_not_pem_stops_start_up_with_one_line(pki: Pki, tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAYGATE_")}
    env.update(PAYGATE_DATABASE_URL=f"sqlite:///{tmp_path / 'p.db'}", PAYGATE_GRPC_TLS_CERT=str(bad),
               PAYGATE_GRPC_TLS_KEY=str(pki.key), PYTHONPATH=str(Path(__file__).parents[3]))
    done = paygate(env, tmp_path, "serve", timeout=30)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "grpc_tls_cert" in lines[0], done.stderr
