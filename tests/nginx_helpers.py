"""Debian's nginx running the shipped deploy/nginx config in front of a test server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DEPLOY = Path(__file__).resolve().parent.parent / "deploy" / "nginx"
NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)


def shipped_http_conf(tmp: Path, upstream: str, backup: str | None = None) -> Path:
    """The shipped agentrank-http.conf with its cache path and upstream pointed at ``tmp`` and
    ``upstream`` (and its commented backup server at ``backup``, when given)."""
    http_conf = (DEPLOY / "agentrank-http.conf").read_text()
    for shipped in ("/var/cache/nginx/agentrank", "server 127.0.0.1:8001 ", "# server 127.0.0.1:8002 backup"):
        assert shipped in http_conf, f"deploy/nginx/agentrank-http.conf no longer has {shipped!r}"
    http_conf = http_conf.replace("/var/cache/nginx/agentrank", str(tmp / "cache"))
    http_conf = http_conf.replace("server 127.0.0.1:8001 ", f"server {upstream} ")
    if backup is not None:  # the documented second server, its line uncommented
        http_conf = http_conf.replace("# server 127.0.0.1:8002 backup", f"server {backup} backup")
    path = tmp / "agentrank-http.conf"
    path.write_text(http_conf)
    return path


def self_signed_certificate(tmp: Path, name: str) -> tuple[Path, Path]:
    """A certificate for ``name`` and its key (openssl, no network)."""
    cert, key = tmp / "fullchain.pem", tmp / "privkey.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            f"/CN={name}",
            "-addext",
            f"subjectAltName=DNS:{name}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def shipped_server_blocks(tmp: Path, http_port: int, https_port: int) -> Path:
    """The shipped agentrank-80.conf and agentrank.conf as installed (every server block, the
    catch-alls included), on 127.0.0.1 at ``http_port`` and ``https_port`` instead of 80 and 443,
    with a self-signed certificate for agentrank.example.org and the shipped site snippet."""
    cert, key = self_signed_certificate(tmp, "agentrank.example.org")
    plain = (DEPLOY / "agentrank-80.conf").read_text()
    tls = (DEPLOY / "agentrank.conf").read_text()
    for shipped, text in (("listen 80", plain), ("listen [::]:80", plain), ("listen 443", tls)):
        assert shipped in text, f"deploy/nginx no longer has {shipped!r}"
    plain = plain.replace("listen [::]:80", "# listen [::]:80").replace("listen 80", f"listen 127.0.0.1:{http_port}")
    tls = tls.replace("listen [::]:443", "# listen [::]:443").replace("listen 443", f"listen 127.0.0.1:{https_port}")
    tls = tls.replace("/etc/letsencrypt/live/agentrank.example.org/fullchain.pem", str(cert))
    tls = tls.replace("/etc/letsencrypt/live/agentrank.example.org/privkey.pem", str(key))
    tls = tls.replace("/etc/nginx/snippets/agentrank-site.conf", str(DEPLOY / "agentrank-site.conf"))
    path = tmp / "sites.conf"
    path.write_text(plain + "\n" + tls)
    return path


@contextmanager
def running_nginx(tmp: Path, port: int, includes: list[Path], servers: Path | None = None) -> Iterator[str]:
    """nginx listening on ``port`` with the ``includes`` in its http block and the shipped site
    config in its server block (or, given ``servers``, that file's server blocks instead, one of
    them on plain http at ``port``); yields its base URL and stops it afterwards."""
    assert NGINX is not None
    temp_paths = "\n".join(
        f"  {kind}_temp_path {tmp / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    included = "\n".join(f"  include {path};" for path in includes)
    server_blocks = (
        f"  include {servers};"
        if servers is not None
        else f"  server {{\n    listen 127.0.0.1:{port};\n    include {DEPLOY / 'agentrank-site.conf'};\n  }}"
    )
    (tmp / "nginx.conf").write_text(
        f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
error_log {tmp / "error.log"};
pid {tmp / "nginx.pid"};
events {{ worker_connections 256; }}
http {{
  access_log {tmp / "access.log"};
{temp_paths}
{included}
{server_blocks}
}}
"""
    )
    check = subprocess.run([NGINX, "-t", "-p", str(tmp), "-c", str(tmp / "nginx.conf")], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    process = subprocess.Popen(
        [NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf"), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:  # listening (a request would not do: the catch-all server closes one for 127.0.0.1)
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
