"""Debian's nginx running the shipped deploy/nginx config in front of a test server."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

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


@contextmanager
def running_nginx(tmp: Path, port: int, includes: list[Path]) -> Iterator[str]:
    """nginx listening on ``port`` with the ``includes`` in its http block and the shipped site
    config in its server block; yields its base URL and stops it afterwards."""
    assert NGINX is not None
    temp_paths = "\n".join(
        f"  {kind}_temp_path {tmp / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    included = "\n".join(f"  include {path};" for path in includes)
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
  server {{
    listen 127.0.0.1:{port};
    include {DEPLOY / "agentrank-site.conf"};
  }}
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
        try:
            httpx.get(url + "/", timeout=5)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
