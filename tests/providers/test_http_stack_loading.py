"""The HTTP stack loads for less: no `importlib.metadata` at import, and a pool's CAs are read only
before its first `https` request, which is still verified against them."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import os
import ssl
import subprocess
import sys
from pathlib import Path

import pytest

from atomic.core.providers import http, http_stack, registry, warmup

FRESH_IMPORT = """
import importlib, json, sys
from atomic.core.providers.http_stack import import_httpx
httpx2 = import_httpx()
import httpcore2
loaded = "importlib.metadata" in sys.modules
import importlib.metadata
print(json.dumps({"loaded": loaded, "ours": [httpx2.__version__, httpcore2.__version__],
                  "metadata": [importlib.metadata.version("httpx2"), importlib.metadata.version("httpcore2")]}))
"""


def test_the_stack_imports_without_importlib_metadata_and_knows_its_versions() -> None:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    out = subprocess.run([sys.executable, "-c", FRESH_IMPORT], capture_output=True, text=True, check=True, env=env)
    result = json.loads(out.stdout)
    assert result["loaded"] is False
    assert result["ours"] == result["metadata"]


def test_the_stand_in_hands_other_names_to_the_real_module() -> None:
    stand_in = http_stack._MetadataStandIn("importlib.metadata")
    assert callable(stand_in.entry_points)
    with pytest.raises(AttributeError):
        _ = stand_in.__path__


def write_cert(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    pytest.importorskip("cryptography")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / f"{name}.pem", folder / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


async def tls_server(cert_file: Path, key_file: Path) -> asyncio.Server:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            await writer.drain()
        except (ssl.SSLError, ConnectionError, asyncio.IncompleteReadError):
            pass  # the client refused our certificate
        finally:
            writer.close()

    return await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="those platforms verify through the OS store")
async def test_a_pool_reads_its_cas_before_the_first_https_request_and_verifies_with_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert_file, key_file = write_cert(tmp_path, "server")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    server = await tls_server(cert_file, key_file)
    port = server.sockets[0].getsockname()[1]
    pool = http._new_pool()
    context = pool._transport._pool._ssl_context
    assert context.cert_store_stats()["x509_ca"] == 0  # nothing read while building the pool
    async with server, pool:
        answer = await pool.get(f"https://127.0.0.1:{port}/")
    assert (answer.status_code, answer.text) == (200, "ok")
    assert context.cert_store_stats()["x509_ca"] == 1


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="those platforms verify through the OS store")
async def test_a_certificate_the_cas_do_not_vouch_for_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cert_file, key_file = write_cert(tmp_path, "server")
    other, _ = write_cert(tmp_path, "other")
    monkeypatch.setenv("SSL_CERT_FILE", str(other))
    server = await tls_server(cert_file, key_file)
    port = server.sockets[0].getsockname()[1]
    pool = http._new_pool()
    async with server, pool:
        with pytest.raises(Exception, match="CERTIFICATE_VERIFY_FAILED"):
            await pool.get(f"https://127.0.0.1:{port}/")


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="those platforms verify through the OS store")
def test_the_cas_loaded_are_the_ones_the_library_default_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    import httpcore2

    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    context = http_stack.tls_context()
    assert isinstance(context, ssl.SSLContext)
    http_stack.load_trust(context)
    expected = httpcore2.default_ssl_context()
    assert context.cert_store_stats() == expected.cert_store_stats()
    assert context.get_ca_certs(binary_form=True) == expected.get_ca_certs(binary_form=True)


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="those platforms verify through the OS store")
@pytest.mark.parametrize("https", [True, False])
def test_a_warm_up_for_an_https_provider_reads_the_cas_in_its_thread(
    https: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert_file, _ = write_cert(tmp_path, "server")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    monkeypatch.setattr(warmup, "_warmups", {})
    monkeypatch.setattr(registry, "_registered", {})
    monkeypatch.setattr(http, "_prebuilt", [])
    registry.start_provider_warmup("openai-responses", https=https)
    warmup._warmups["openai-responses"].result(timeout=60)
    [pool] = http._prebuilt
    context = pool._transport._pool._ssl_context
    assert context.cert_store_stats()["x509_ca"] == (1 if https else 0)
