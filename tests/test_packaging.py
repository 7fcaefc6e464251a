"""The built distribution installs one import package, ``kgqa``, and nothing named after a layer folder."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LAYERS = ("app", "cache", "kg", "planner", "autogen", "evals")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    had_build = (REPO / "build").exists()
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(REPO)], capture_output=True, text=True, timeout=600)
    if not had_build:  # setuptools builds in the source tree; leave the checkout as it was
        shutil.rmtree(REPO / "build", ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return next(out.glob("kgqa-*.whl"))


def test_the_wheel_holds_only_the_kgqa_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"kgqa"}
    for layer in LAYERS:
        assert f"kgqa/{layer}/__init__.py" in names
    assert "kgqa/app/static/index.html" in names and "kgqa/evals/questions/movies.jsonl" in names


def test_a_plain_install_imports_kgqa_and_no_layer_by_its_folder_name(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-compile", "--target",
                    str(target), str(wheel)], check=True, capture_output=True, timeout=300)
    probe = ("import importlib.util as u, sys; import kgqa.planner, kgqa.kg.compare; "
             f"sys.exit(sum(u.find_spec(n) is not None for n in {LAYERS!r}))")
    # run outside the checkout, with only the installed copy on the path
    proc = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(target)!r}); {probe}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:] or f"{proc.returncode} layer folder(s) importable"
