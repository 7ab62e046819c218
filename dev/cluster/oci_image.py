"""Writes a folder as an OCI image archive that `ctr images import` and `docker load` take: no
registry, no daemon.
The folder is one layer; with --base, it is a layer on top of another archive's image (whose
layers, environment and settings it keeps unless given here). The archive follows the OCI image layout (oci-layout, index.json, blobs/sha256/...); the
image's name is the index's org.opencontainers.image.ref.name annotation and containerd's
io.containerd.image.name; a manifest.json (the layout `docker save` writes) names the same config
and layers for Docker 20.10, whose `docker load` reads no OCI index.

    python3 oci_image.py ROOTFS NAME OUT.tar [--base BASE.tar] [--entrypoint JSON] [--cmd JSON] [--env K=V ...] [--workdir DIR] [--user UID]

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
    return gzip.compress(data, compresslevel=1, mtime=0), "sha256:" + hashlib.sha256(data).hexdigest()


def read_base(path: str) -> tuple[dict, list[tuple[dict, bytes]]]:
    """The image config of an archive this script wrote, and its layers (descriptor, blob)."""
    with tarfile.open(path) as t:
        def read(digest: str) -> bytes:
            return t.extractfile("blobs/sha256/" + digest.split(":", 1)[1]).read()
        index = json.loads(t.extractfile("index.json").read())
        manifest = json.loads(read(index["manifests"][0]["digest"]))
        config = json.loads(read(manifest["config"]["digest"]))
        return config, [(d, read(d["digest"])) for d in manifest["layers"]]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("rootfs")
    p.add_argument("name", help="e.g. alice-rl.local/pause:3.10")
    p.add_argument("out")
    p.add_argument("--base", help="an archive this script wrote: its layers go under the folder's")
    p.add_argument("--entrypoint", type=json.loads, default=None)
    p.add_argument("--cmd", type=json.loads, default=None)
    p.add_argument("--env", action="append", default=[], help="K=V, added to (or replacing in) the base's")
    p.add_argument("--workdir", default=None)
    p.add_argument("--user", default=None)
    a = p.parse_args()

    base_config, base_layers = read_base(a.base) if a.base else ({"config": {}, "rootfs": {"diff_ids": []}, "history": []}, [])
    gz, diff_id = layer(a.rootfs)
    env = dict(e.split("=", 1) for e in base_config["config"].get("Env") or ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"])
    env.update(e.split("=", 1) for e in a.env)
    old = base_config["config"]
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {"Env": [k + "=" + v for k, v in env.items()],
                   # a new entrypoint drops the base's command, as a Dockerfile's ENTRYPOINT does
                   "Entrypoint": a.entrypoint if a.entrypoint is not None else old.get("Entrypoint"),
                   "Cmd": a.cmd if a.cmd is not None else (None if a.entrypoint is not None else old.get("Cmd")),
                   "WorkingDir": a.workdir if a.workdir is not None else old.get("WorkingDir", "/"),
                   "User": a.user if a.user is not None else old.get("User", "")},
        "rootfs": {"type": "layers", "diff_ids": base_config["rootfs"]["diff_ids"] + [diff_id]},
        "history": base_config["history"] + [{"created_by": "dev/cluster/oci_image.py " + os.path.basename(a.rootfs)}],
    }
    with tarfile.open(a.out, "w") as out:
        layout = b'{"imageLayoutVersion": "1.0.0"}'
        info = tarfile.TarInfo("oci-layout")
        info.size = len(layout)
        out.addfile(info, io.BytesIO(layout))
        layers = []
        for descriptor, data in base_layers:
            blob(out, data)
            layers.append(descriptor)
        layer_digest, layer_size = blob(out, gz)
        layers.append({"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": layer_digest, "size": layer_size})
        config_digest, config_size = blob(out, json.dumps(config).encode())
        manifest = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": config_size},
            "layers": layers,
        }
        manifest_digest, manifest_size = blob(out, json.dumps(manifest).encode())
        index = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.index.v1+json",
            "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manifest_digest, "size": manifest_size,
                           "annotations": {"io.containerd.image.name": a.name,
                                           "org.opencontainers.image.ref.name": a.name.rsplit(":", 1)[-1]}}],
        }
        docker = [{"Config": "blobs/sha256/" + config_digest.split(":", 1)[1], "RepoTags": [a.name],
                   "Layers": ["blobs/sha256/" + d["digest"].split(":", 1)[1] for d in layers]}]
        for name, content in (("index.json", index), ("manifest.json", docker)):
            data = json.dumps(content).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    main()
