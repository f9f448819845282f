"""The build backend of the cardcat package (PEP 517, with PEP 660's editable installs), standard library only.

``pip install ./clients/python`` builds the wheel with it. It needs nothing from a package index, so the
package installs from a checkout on a machine without one (pip's isolated build environment installs no
build requirement: ``requires = []``). It builds:

- the wheel: ``src/cardcat`` (its ``.py`` files and ``py.typed``) and the ``.dist-info`` (METADATA with the
  README as the long description, WHEEL, RECORD);
- the sdist: this directory's sources (pyproject.toml, README.md, generate.py, build_backend/, src/, tests/);
- an editable wheel: a ``.pth`` file that puts ``src`` on ``sys.path``.

The project's metadata is below; ``tests/test_package.py`` checks that pyproject.toml's ``[project]`` says the
same. Files are written with a fixed time (``SOURCE_DATE_EPOCH`` when set), so a build is reproducible.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NAME = "cardcat"
SUMMARY = "A typed client of the cardcat API: trading-card catalogues and prices"
REQUIRES_PYTHON = ">=3.9"
CLASSIFIERS = [
    "Programming Language :: Python :: 3",
    "Programming Language :: Python :: 3 :: Only",
    "Typing :: Typed",
]
TAG = "py3-none-any"


def version() -> str:
    with open(os.path.join(ROOT, "src", NAME, "_version.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.M)
    if not m:
        raise RuntimeError("src/cardcat/_version.py has no __version__")
    return m.group(1)


def _timestamp() -> Tuple[int, int, int, int, int, int]:
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01, zip's earliest
    return time.gmtime(max(epoch, 315532800))[:6]


def metadata() -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {version()}",
        f"Summary: {SUMMARY}",
        f"Requires-Python: {REQUIRES_PYTHON}",
    ]
    lines += [f"Classifier: {c}" for c in CLASSIFIERS]
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return "\n".join(lines) + "\n\n" + readme


def _wheel_file() -> str:
    return f"Wheel-Version: 1.0\nGenerator: cardcat_build\nRoot-Is-Purelib: true\nTag: {TAG}\n"


def _package_files() -> List[Tuple[str, str]]:
    """(path in the wheel, path on disk) of the package's files, sorted."""
    out = []
    src = os.path.join(ROOT, "src")
    for dirpath, dirnames, filenames in os.walk(os.path.join(src, NAME)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py") or name == "py.typed":
                disk = os.path.join(dirpath, name)
                out.append((os.path.relpath(disk, src).replace(os.sep, "/"), disk))
    return out


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def _write_wheel(directory: str, files: Dict[str, bytes]) -> str:
    dist_info = f"{NAME}-{version()}.dist-info"
    files = dict(files)
    files[f"{dist_info}/METADATA"] = metadata().encode("utf-8")
    files[f"{dist_info}/WHEEL"] = _wheel_file().encode("utf-8")
    files[f"{dist_info}/top_level.txt"] = f"{NAME}\n".encode("utf-8")
    record = "".join(f"{path},{_record_hash(data)},{len(data)}\n" for path, data in files.items())
    record += f"{dist_info}/RECORD,,\n"
    files[f"{dist_info}/RECORD"] = record.encode("utf-8")
    basename = f"{NAME}-{version()}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(directory, basename), "w", zipfile.ZIP_DEFLATED) as whl:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, _timestamp())
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(info, data)
    return basename


def _dist_info(directory: str) -> str:
    dist_info = f"{NAME}-{version()}.dist-info"
    os.makedirs(os.path.join(directory, dist_info), exist_ok=True)
    with open(os.path.join(directory, dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(metadata())
    with open(os.path.join(directory, dist_info, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return dist_info


# PEP 517.

def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    return _dist_info(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    return _dist_info(metadata_directory)


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None,
                metadata_directory: Optional[str] = None) -> str:
    files = {}
    for path, disk in _package_files():
        with open(disk, "rb") as f:
            files[path] = f.read()
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None,
                   metadata_directory: Optional[str] = None) -> str:
    pth = os.path.join(ROOT, "src") + "\n"
    return _write_wheel(wheel_directory, {f"_{NAME}_editable.pth": pth.encode("utf-8")})


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    base = f"{NAME}-{version()}"
    basename = f"{base}.tar.gz"
    entries = []
    for top in ("pyproject.toml", "README.md", "generate.py"):
        entries.append(top)
    for sub in ("build_backend", "src", "tests"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, sub)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if not name.endswith((".pyc", ".part")):
                    entries.append(os.path.relpath(os.path.join(dirpath, name), ROOT))
    mtime = max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)
    with tarfile.open(os.path.join(sdist_directory, basename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add(name: str, data: bytes) -> None:
            info = tarfile.TarInfo(f"{base}/{name}")
            info.size, info.mtime, info.mode = len(data), mtime, 0o644
            tar.addfile(info, io.BytesIO(data))

        for rel in entries:
            with open(os.path.join(ROOT, rel), "rb") as f:
                add(rel.replace(os.sep, "/"), f.read())
        add("PKG-INFO", metadata().encode("utf-8"))
    return basename
