"""scripts/fetch_assets.py, the project's `assets` step: local copies, a mirror, and no network.

Only loopback addresses are used: a closed port stands for "no network", a local HTTP server for
a mirror.
"""
import http.server
import importlib.util
import io
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
SCRIPT = ROOT / "scripts" / "fetch_assets.py"
spec = importlib.util.spec_from_file_location("fetch_assets", SCRIPT)
fetch_assets = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fetch_assets)
NAMES = list(fetch_assets.REPOSITORIES)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """SPACY_LAL_ASSETS names an empty folder, downloads go to a closed loopback port."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("SPACY_LAL_ASSETS", str(empty))
    monkeypatch.setenv("SPACY_LAL_ASSETS_URL", f"http://127.0.0.1:{closed_port()}")
    return empty


def test_missing_assets_say_what_and_where_without_a_traceback(tmp_path, offline):
    local = tmp_path / "shared" / "assets"  # the project's vars.local_assets, absent
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "assets"), "--local", str(local)],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    for name in NAMES:
        repo, commit = fetch_assets.REPOSITORIES[name]
        assert f"fetch_assets: {name} is missing: no local copy in {offline}, {local}, and the download of" in done.stderr
        assert f"Put a copy of https://github.com/{repo} at commit {commit} in a folder named {name}" in done.stderr
    assert done.stderr.count("Connection refused") == len(NAMES)
    assert f"in {local} (the project's vars.local_assets)" in done.stderr
    assert "named by the environment variable SPACY_LAL_ASSETS" in done.stderr
    assert list((tmp_path / "assets").iterdir()) == []  # nothing half-downloaded left behind


def test_project_assets_step_fails_with_the_message(tmp_path, offline):
    """`spacy project run demo` stops at its first step with the script's message and status."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "project.yml", project)
    shutil.copytree(ROOT / "scripts", project / "scripts")
    done = subprocess.run(
        [sys.executable, "-m", "spacy", "project", "run", "demo", str(project), "--vars.local_assets", str(offline)],
        cwd=project, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert f"fetch_assets: {NAMES[0]} is missing" in done.stderr
    assert " assets ===" in done.stdout and " corpus ===" not in done.stdout  # the workflow stopped there


def test_local_copies_in_spacy_lal_assets_are_linked(tmp_path, offline, monkeypatch):
    copies = tmp_path / "copies"
    for name in NAMES:
        (copies / name).mkdir(parents=True)
    monkeypatch.setenv("SPACY_LAL_ASSETS", os.pathsep.join([str(offline), str(copies)]))
    assert fetch_assets.main([str(tmp_path / "assets"), "--local", str(tmp_path / "absent")]) == 0
    for name in NAMES:
        assert (tmp_path / "assets" / name).resolve() == (copies / name).resolve()


def test_download_from_a_mirror(tmp_path, offline, monkeypatch):
    """An archive laid out as GitHub's (one top folder) is unpacked as assets/<name>."""
    archives = {}
    for name, (repo, commit) in fetch_assets.REPOSITORIES.items():
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            data = f"{name}\n".encode()
            info = tarfile.TarInfo(f"{repo.split('/')[1]}-{commit}/README.md")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        archives[f"/{repo}/archive/{commit}.tar.gz"] = buffer.getvalue()

    class Mirror(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = archives.get(self.path)
            self.send_response(200 if body else 404)
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Mirror)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("SPACY_LAL_ASSETS_URL", f"http://127.0.0.1:{server.server_port}/")
        assert fetch_assets.main([str(tmp_path / "assets")]) == 0
    finally:
        server.shutdown()
        server.server_close()
    for name in NAMES:
        assert (tmp_path / "assets" / name / "README.md").read_text() == f"{name}\n"
    assert sorted(p.name for p in (tmp_path / "assets").iterdir()) == sorted(NAMES)


def test_file_set_downloaded_from_a_mirror_and_checked(tmp_path, offline, monkeypatch):
    """--only nltk-text: each file from <repo>/raw/<commit>/<folder>/<file>, kept only if every
    SHA-256 matches the pin."""
    import hashlib

    repo, commit, folder, _ = fetch_assets.FILE_SETS["nltk-text"]
    bodies = {"a.zip": b"zip\n", "a.xml": b"<package/>\n"}
    pins = {name: hashlib.sha256(body).hexdigest() for name, body in bodies.items()}
    monkeypatch.setitem(fetch_assets.FILE_SETS, "nltk-text", (repo, commit, folder, pins))
    served = dict(bodies)

    class Mirror(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            prefix = f"/{repo}/raw/{commit}/{folder}/"
            body = served.get(self.path[len(prefix):]) if self.path.startswith(prefix) else None
            self.send_response(200 if body else 404)
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Mirror)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("SPACY_LAL_ASSETS_URL", f"http://127.0.0.1:{server.server_port}")
        served["a.xml"] = b"tampered\n"
        assert fetch_assets.main([str(tmp_path / "bad"), "--only", "nltk-text"]) == 1
        assert list((tmp_path / "bad").iterdir()) == []  # nothing half-downloaded left behind
        served["a.xml"] = bodies["a.xml"]
        assert fetch_assets.main([str(tmp_path / "assets"), "--only", "nltk-text"]) == 0
    finally:
        server.shutdown()
        server.server_close()
    assert sorted(p.name for p in (tmp_path / "assets").iterdir()) == ["nltk-text"]
    assert {p.name: p.read_bytes() for p in (tmp_path / "assets" / "nltk-text").iterdir()} == bodies
