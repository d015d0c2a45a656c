"""Data in and out from Python (docs/artifacts.md): what a working directory's bundle holds, where a
downloaded artifact may land, and ``run(workdir=..., outputs=...)`` end to end against a real
``wrangler dev`` with a real agent: ``src/agent/agent.sh`` under /bin/sh on this machine, given the
lease's token through the sim's operator route (as test/e2e/artifacts-cli.test.ts gives it), running
a real shell command that checks what was shipped and writes the outputs.
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from lessor import Client, LessorError, OutputsIncomplete
from lessor._data import artifact_target, is_artifact_path, pack_workdir, walk_workdir

AGENT = Path(__file__).resolve().parents[3] / "src" / "agent" / "agent.sh"


def _repository(root: Path) -> Path:
    """A working directory holding code and what must never leave this machine."""
    repo = root / "repo"
    (repo / "node_modules" / "left-pad").mkdir(parents=True)
    (repo / "__pycache__").mkdir()
    (repo / "src" / "deep" / "__pycache__").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "train.py").write_text("print('train')\n")
    (repo / "src" / "model.py").write_text("W = 1\n")
    (repo / "src" / "deep" / "keep.log").write_text("kept: the nested .gitignore says so\n")
    (repo / "src" / "deep" / "__pycache__" / "m.pyc").write_bytes(b"\0")
    (repo / "src" / ".gitignore").write_text("!deep/keep.log\n")
    (repo / ".env").write_text("OPENAI_API_KEY=sk-never-shipped\n")
    (repo / ".env.local").write_text("SECRET=never\n")
    (repo / ".dev.vars").write_text("LESSOR_BOOTSTRAP_TOKEN=never\n")
    (repo / ".gitignore").write_text("*.log\ndata/\n")
    (repo / ".lessorignore").write_text("checkpoints/\n")
    (repo / "run.log").write_text("noise\n")
    (repo / "data").mkdir()
    (repo / "data" / "big.bin").write_bytes(b"x" * 1000)
    (repo / "checkpoints").mkdir()
    (repo / "checkpoints" / "old.pt").write_bytes(b"y" * 10)
    (repo / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1;\n")
    (repo / "__pycache__" / "train.cpython-311.pyc").write_bytes(b"\0")
    os.symlink("/etc/passwd", repo / "outside")
    os.symlink("train.py", repo / "inside")
    return repo


def test_a_bundle_holds_the_code_and_none_of_what_stays_here(tmp_path: Path) -> None:
    repo = _repository(tmp_path)
    walk = walk_workdir(repo)
    assert walk.entries == [".gitignore", ".lessorignore", "inside", "src", "src/.gitignore", "src/deep", "src/deep/keep.log", "src/model.py", "train.py"]
    left = dict(walk.left_out)
    assert left[".git/"] == ".git (always)"
    assert left[".env"] == left[".env.local"] == ".env* (always)"
    assert left[".dev.vars"] == ".dev.vars (always)"
    assert left["node_modules/"] == "node_modules (always)" and left["src/deep/__pycache__/"] == "__pycache__ (always)"
    assert left["run.log"] == "*.log (.gitignore)" and left["data/"] == "data/ (.gitignore)"
    assert left["checkpoints/"] == "checkpoints/ (.lessorignore)"
    assert left["outside"] == "symbolic link out of the directory"

    bundle = pack_workdir(repo)
    try:
        raw = bundle.path.read_bytes()
        assert bundle.size == len(raw) and bundle.sha256 == hashlib.sha256(raw).hexdigest()
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:gz") as tar:
            names = sorted(m.name for m in tar.getmembers())
            assert names == sorted(walk.entries)
            link = tar.getmember("inside")
            assert link.issym() and link.linkname == "train.py"
            assert tar.extractfile("train.py").read() == b"print('train')\n"  # type: ignore[union-attr]
    finally:
        bundle.remove()
    assert not bundle.path.exists()


@pytest.mark.parametrize("path", ["a", "a/b.bin", "ckpt/epoch 3.pt", "é/ü"])
def test_an_artifact_path_lands_inside_the_directory(tmp_path: Path, path: str) -> None:
    assert is_artifact_path(path)
    target = artifact_target(tmp_path, path)
    assert tmp_path.resolve() in target.parents


@pytest.mark.parametrize("path", ["", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a/.", "a\\b", "a\x00b", "a\nb", "x" * 1025, 3, None])
def test_a_path_the_server_should_never_name_is_refused(tmp_path: Path, path: object) -> None:
    assert not is_artifact_path(path)
    with pytest.raises(LessorError) as raised:
        artifact_target(tmp_path, path)
    assert raised.value.code == "unsafe_path"


def test_a_path_through_a_link_out_of_the_directory_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(tmp_path, out / "up")
    with pytest.raises(LessorError, match="refused"):
        artifact_target(out, "up/escaped.bin")


FILES = 20
FILE_BYTES = 64 * 1024
MAKE_OUTPUTS = f"""set -e
[ -f train.py ] && [ -f src/model.py ] || {{ echo "the code is not in the working directory" >&2; exit 20; }}
for f in .env .env.local .git .dev.vars node_modules __pycache__ run.log data checkpoints outside; do
  if [ -e "$f" ]; then echo "$f was shipped" >&2; exit 21; fi
done
i=1
while [ $i -le {FILES} ]; do
  mkdir -p "$LESSOR_OUT/ckpt-$((i % 4))"
  head -c {FILE_BYTES} /dev/urandom > "$LESSOR_OUT/ckpt-$((i % 4))/part-$i.bin"
  i=$((i + 1))
done
head -c 9000000 /dev/urandom > "$LESSOR_OUT/weights.bin"
echo "wrote outputs"
"""


@pytest.fixture()
def agents() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for p in started:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_run_ships_the_workdir_and_brings_the_outputs_back(client: Client, server_url: str, tmp_path: Path, agents: list[subprocess.Popen[bytes]]) -> None:
    repo = _repository(tmp_path)
    (repo / "make_outputs.sh").write_text(MAKE_OUTPUTS)
    out = tmp_path / "out"
    result: dict[str, object] = {}

    def job() -> None:
        try:
            # The sim's machine runs `hang` (its own command language); the real work is agent.sh's.
            result["code"] = client.run("l4", "hang", name="py-data", ttl="20m", outputs_wait="2m", workdir=repo, outputs=out, out=io.StringIO())
        except BaseException as e:  # noqa: B902 - handed to the test's thread
            result["error"] = e

    runner = threading.Thread(target=job)
    runner.start()
    lease_id = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = client.leases(name="py-data", limit=1)
        if found and found[0].state == "ready":
            lease_id = found[0].id
            break
        time.sleep(0.3)
    assert lease_id, "the job's lease was never ready"
    assert client.api.get_leases_id(lease_id).policy.outputs_wait == "2m"

    token = os.environ["LESSOR_TEST_BOOTSTRAP_TOKEN"]
    minted = httpx.post(f"{server_url}/v1/sim/leases/{lease_id}/agent-token", headers={"authorization": f"Bearer {token}"})
    assert minted.status_code == 201, minted.text
    home = tmp_path / "agent-home"
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(home),
        "LESSOR_URL": server_url,
        "LESSOR_LEASE_ID": lease_id,
        "LESSOR_LEASE_TOKEN": minted.json()["token"],
        "LESSOR_CMD": "sh make_outputs.sh",
        "LESSOR_AGENT_HEARTBEAT_S": "2",
        "LESSOR_AGENT_POLL_WAIT_S": "5",
        "LESSOR_AGENT_BACKOFF_MAX_S": "1",
    }
    agent = subprocess.Popen(["/bin/sh", str(AGENT)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    agents.append(agent)
    runner.join(timeout=240)
    assert not runner.is_alive(), "run did not return"
    _, agent_err = agent.communicate(timeout=60)
    assert "error" not in result, f"{result['error']!r}\n--- agent ---\n{agent_err.decode(errors='replace')}"
    assert result["code"] == 0

    unpacked = sorted(str(p.relative_to(home / "lessor" / "work")) for p in (home / "lessor" / "work").rglob("*") if p.is_file() or p.is_symlink())
    assert unpacked == [".gitignore", ".lessorignore", "inside", "make_outputs.sh", "src/.gitignore", "src/deep/keep.log", "src/model.py", "train.py"]

    wrote = home / "lessor" / "out"
    names = sorted(str(p.relative_to(wrote)) for p in wrote.rglob("*") if p.is_file())
    assert len(names) == FILES + 1
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == names
    for name in names:
        assert (out / name).read_bytes() == (wrote / name).read_bytes(), name

    listed = client.artifacts(lease_id)
    assert sorted(a.path for a in listed) == names
    weights = next(a for a in listed if a.path == "weights.bin")
    assert weights.size == 9_000_000 and weights.sha256 == hashlib.sha256((wrote / "weights.bin").read_bytes()).hexdigest()

    # One directory of them again, into a new place; a file already there with its digest is kept.
    again = tmp_path / "again"
    got = client.download(lease_id, again, "ckpt-1")
    assert sorted(str(p.relative_to(again)) for p in got) == sorted(n for n in names if n.startswith("ckpt-1/"))
    before = {p: p.stat().st_mtime_ns for p in got}
    assert client.download(lease_id, again, "ckpt-1") == got
    assert {p: p.stat().st_mtime_ns for p in got} == before
    with pytest.raises(LessorError) as missing:
        client.download(lease_id, again, "nothing/here")
    assert missing.value.code == "not_found"


def test_outputs_that_did_not_come_back_raise_outputs_incomplete_naming_them() -> None:
    from lessor._occupant import incomplete_error

    error = incomplete_error(["a.bin", "b/c.bin"], [{"path": "d.bin", "code": "checksum_mismatch"}], 0)
    assert isinstance(error, OutputsIncomplete) and error.code == "outputs_incomplete"
    assert error.details == {"missing": ["a.bin", "b/c.bin"], "failed": [{"path": "d.bin", "code": "checksum_mismatch"}], "exit_code": 0}
    assert "a.bin, b/c.bin" in error.message and "d.bin (checksum_mismatch)" in error.message


def test_a_download_is_kept_only_when_its_bytes_match_every_digest(tmp_path: Path) -> None:
    from lessor._data import keep_download

    right = hashlib.sha256(b"weights").hexdigest()
    partial, target = tmp_path / "w.bin.lessor-partial", tmp_path / "w.bin"
    partial.write_bytes(b"weights")
    with pytest.raises(LessorError) as bad:
        keep_download(partial, target, "w.bin", right, "0" * 64)
    assert bad.value.code == "checksum_mismatch" and not partial.exists() and not target.exists()
    partial.write_bytes(b"weights")
    assert keep_download(partial, target, "w.bin", right, right) == target
    assert target.read_bytes() == b"weights" and not partial.exists()
