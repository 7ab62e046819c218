"""Writes a folder as a one-layer OCI image archive that `ctr images import` takes: no registry, no
daemon. The archive follows the OCI image layout (oci-layout, index.json, blobs/sha256/...); the
image's name is the index's org.opencontainers.image.ref.name annotation and containerd's
io.containerd.image.name.

    python3 oci_image.py ROOTFS NAME OUT.tar [--entrypoint JSON] [--cmd JSON] [--env K=V ...] [--workdir DIR] [--user UID]

Written here rather than taken from a tool because the only tools that build images from a folder
(buildah, docker import) need a daemon or a registry-less setup of their own; the format is small.
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import tarfile


def blob(out: tarfile.TarFile, data: bytes) -> tuple[str, int]:
    digest = hashlib.sha256(data).hexdigest()
    info = tarfile.TarInfo("blobs/sha256/" + digest)
    info.size = len(data)
    info.mtime = 0
    out.addfile(info, io.BytesIO(data))
    return "sha256:" + digest, len(data)


def layer(rootfs: str) -> tuple[bytes, str]:
    """The folder as a gzipped tar, owners and modes kept, times zeroed; and the uncompressed digest (the diff id)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        for top, dirs, files in os.walk(rootfs):
            dirs.sort()
            for name in sorted(dirs) + sorted(files):
                path = os.path.join(top, name)
                info = t.gettarinfo(path, os.path.relpath(path, rootfs))
                info.mtime = 0
                if info.isfile():
                    with open(path, "rb") as f:
                        t.addfile(info, f)
                else:
                    t.addfile(info)
    data = raw.getvalue()
    return gzip.compress(data, mtime=0), "sha256:" + hashlib.sha256(data).hexdigest()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("rootfs")
    p.add_argument("name", help="e.g. alice-rl.local/pause:3.10")
    p.add_argument("out")
    p.add_argument("--entrypoint", type=json.loads, default=None)
    p.add_argument("--cmd", type=json.loads, default=None)
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--workdir", default="/")
    p.add_argument("--user", default="")
    a = p.parse_args()

    gz, diff_id = layer(a.rootfs)
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {"Env": a.env or ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                   "Entrypoint": a.entrypoint, "Cmd": a.cmd, "WorkingDir": a.workdir, "User": a.user},
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created_by": "dev/cluster/oci_image.py " + os.path.basename(a.rootfs)}],
    }
    with tarfile.open(a.out, "w") as out:
        layout = b'{"imageLayoutVersion": "1.0.0"}'
        info = tarfile.TarInfo("oci-layout")
        info.size = len(layout)
        out.addfile(info, io.BytesIO(layout))
        layer_digest, layer_size = blob(out, gz)
        config_digest, config_size = blob(out, json.dumps(config).encode())
        manifest = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": config_size},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": layer_digest, "size": layer_size}],
        }
        manifest_digest, manifest_size = blob(out, json.dumps(manifest).encode())
        index = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.index.v1+json",
            "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manifest_digest, "size": manifest_size,
                           "annotations": {"io.containerd.image.name": a.name,
                                           "org.opencontainers.image.ref.name": a.name.rsplit(":", 1)[-1]}}],
        }
        data = json.dumps(index).encode()
        info = tarfile.TarInfo("index.json")
        info.size = len(data)
        out.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    main()
