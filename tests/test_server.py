"""The fixture server: two origins, isolation headers on the Node tool's path only, faults injected."""

import urllib.request

import pytest

from harness.server import SERVER_FAULTS_COOKIE, FixtureServer, ReferenceConfig


@pytest.fixture(scope="module")
def server():
    with FixtureServer(ReferenceConfig(relay_port=4321, faults=["switch-default-on"])) as running:
        yield running


def get(url, headers=None):
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as response:
        return response.headers, response.read().decode()


def test_serves_every_tool_page_on_both_origins(server):
    for origin in (server.origin, server.other_origin):
        for tool in ("node", "sql", "go", "slides", "excalidraw", "drawio"):
            headers, body = get(f"{origin}/{tool}/")
            assert "<title>" in body and headers["Content-Type"].startswith("text/html")


def test_isolation_headers_on_the_node_path_only(server):
    node_headers, _ = get(f"{server.origin}/node/")
    assert node_headers["Cross-Origin-Opener-Policy"] == "same-origin"
    assert node_headers["Cross-Origin-Embedder-Policy"] == "require-corp"
    for tool in ("sql", "go", "slides", "excalidraw", "drawio"):
        headers, _ = get(f"{server.origin}/{tool}/")
        assert "Cross-Origin-Embedder-Policy" not in headers and "Cross-Origin-Opener-Policy" not in headers


def test_server_faults_come_from_the_contexts_cookie(server):
    cookie = {"Cookie": f"{SERVER_FAULTS_COOKIE}=isolation-headers-everywhere,isolation-headers-missing"}
    slides, _ = get(f"{server.origin}/slides/", cookie)
    assert slides["Cross-Origin-Embedder-Policy"] == "require-corp"
    node, _ = get(f"{server.origin}/node/", {"Cookie": f"{SERVER_FAULTS_COOKIE}=isolation-headers-missing"})
    assert "Cross-Origin-Embedder-Policy" not in node


def test_page_is_told_the_relay_port_and_the_faults(server):
    _, body = get(f"{server.origin}/slides/?doc=intro")
    assert "relayPort: 4321" in body and '...["switch-default-on"]' in body


def test_nothing_outside_the_served_folders(server):
    with pytest.raises(urllib.error.HTTPError, match="404"):
        get(f"{server.origin}/assets/../../build.mjs")
