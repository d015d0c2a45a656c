"""Volumes from Python (docs/volumes.md), against a real ``wrangler dev`` on the sim: a volume made by
name (and found again by it), a job that saves a checkpoint to it and a second job, on another
machine, that reads it back; a delete refused while a lease mounts it, then done."""

from __future__ import annotations

import io
import uuid

import pytest

from lessor import AsyncClient, Client, Conflict, NotFound


def test_a_checkpoint_saved_by_one_job_is_read_by_the_next(client: Client) -> None:
    name = f"py-vol-{uuid.uuid4().hex[:6]}"
    # Where the sim offers L4s, so that the jobs below fit beside the volume.
    region = client.api.get_catalog_offers(gpu="l4", provider="sim").data[0].region
    made = client.volume(name, 10, region=region)
    assert made.name == name and made.state == "ready" and made.provider == "sim"
    assert client.volume(name, 10, region=region).id == made.id  # by name: found, not made again
    assert name in [v.name for v in client.volumes()]

    first = io.StringIO()
    # The sim's command language: `save` writes under the mount, `read` prints it (docs/sim.md).
    assert client.run("l4", "save /ckpt/model.pt epoch-3; echo saved", volumes={name: "/ckpt"}, ttl="10m", out=first) == 0
    assert first.getvalue() == "saved\n"
    second = io.StringIO()
    assert client.run("l4", "read /ckpt/model.pt", volumes={name: "/ckpt"}, ttl="10m", out=second) == 0
    assert second.getvalue() == "epoch-3\n"
    leases = [lease for lease in client.leases(limit=10) if lease.volumes and lease.volumes[0].name == name]
    assert len(leases) == 2 and leases[0].offer and leases[1].offer and leases[0].offer.region == leases[1].offer.region == made.region

    with client.scratch("l4", ttl="10m", volumes={name: "/ckpt"}) as box:
        with pytest.raises(Conflict) as in_use:
            client.delete_volume(name)
        assert in_use.value.code == "volume_in_use"
        assert box.exec("read /ckpt/model.pt").output == "epoch-3\n"
    assert client.delete_volume(name).name == name
    with pytest.raises(NotFound):
        client.delete_volume(name)


@pytest.mark.asyncio
async def test_volumes_awaited(server_url: str, api_key: str) -> None:
    name = f"py-avol-{uuid.uuid4().hex[:6]}"
    async with AsyncClient(server_url, api_key) as lessor:
        made = await lessor.volume(name, 5)
        assert name in [v.name for v in await lessor.volumes()]
        assert (await lessor.delete_volume(made)).id == made.id
