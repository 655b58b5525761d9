"""The package as a user gets it: `python -m build` makes a wheel, the wheel installs in a
fresh virtual environment, and the README's snippet runs there against a real server."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

from conftest import TOKEN, plan_for

HERE = Path(__file__).resolve().parents[1]


def test_the_wheel_installs_in_a_fresh_venv_and_the_readme_snippet_runs(planlock, site, tmp_path):
    source = tmp_path / "source"
    shutil.copytree(HERE, source, ignore=shutil.ignore_patterns("tests", "__pycache__", "build",
                                                                 "*.egg-info"))
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"),
                    str(source)], check=True, capture_output=True)
    wheels = list((tmp_path / "dist").glob("planlock_client-*.whl"))
    assert len(wheels) == 1, wheels

    fresh = tmp_path / "venv"
    venv.create(fresh, with_pip=True)
    python = fresh / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheels[0])], check=True)

    readme = (HERE / "README.md").read_text()
    snippet = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    assert len([line for line in snippet.splitlines() if line.strip()]) <= 6, snippet
    # The snippet as written, pointed at this test's server (and its token).
    snippet = snippet.replace('"http://127.0.0.1:8080", token=None', f'"{planlock}", token="{TOKEN}"')
    (tmp_path / "plan.json").write_text(json.dumps(plan_for(site)))
    out = subprocess.run([str(python), "-c", snippet], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("succeeded ['planlock'] None"), out.stdout
