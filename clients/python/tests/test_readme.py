"""The README's "Python" section, run as a new user runs it: its ```python blocks, exactly as
written, as the cells of one notebook in a real Jupyter kernel (ipykernel, through nbclient), with
only LESSOR_URL and LESSOR_API_KEY set, as the section's shell lines set them. One cell runs a job,
the other chats with a deployment through the `openai` package.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from lessor import Client

README = Path(__file__).resolve().parents[3] / "README.md"
#: How long one cell may take: a job on the sim, or a deployment becoming ready.
CELL_TIMEOUT_S = 240


def readme_cells() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## Python\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section, 'README.md has no "## Python" section'
    return re.findall(r"^```python\n(.*?)^```$", section.group(1), re.M | re.S)


def stream(cell: nbformat.NotebookNode, name: str) -> str:
    return "".join(o["text"] for o in cell.outputs if o["output_type"] == "stream" and o["name"] == name)


def test_the_readmes_notebook_cells_run_a_job_and_chat_with_a_deployment(server_url: str, new_org: Callable[[str], str]) -> None:
    cells = readme_cells()
    assert len(cells) == 2, cells
    key = new_org("readme")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LESSOR_")}
    env.update({"LESSOR_URL": server_url, "LESSOR_API_KEY": key, "JUPYTER_PLATFORM_DIRS": "1"})

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    # An error in a cell raises CellExecutionError with the cell's traceback.
    NotebookClient(notebook, kernel_name="python3", timeout=CELL_TIMEOUT_S).execute(env=env)
    job, chat = notebook.cells

    assert stream(job, "stdout") == "hello from the GPU\ndone\nexit code 0\n"
    assert re.search(r"^lessor: lease ls_[0-9a-z]{26} \(sim l4 x1, .+\): following its output$", stream(job, "stderr"), re.M)
    assert stream(chat, "stdout").strip() != ""
    assert key not in str(notebook)

    # What the cells left: the job's lease, exited and released (or releasing); the deployment, serving.
    with Client(server_url, key) as lessor:
        (lease,) = lessor.leases(kind="job")
        assert lease.state in ("releasing", "released") and lease.exit is not None and lease.exit.code == 0
        deployment = lessor.deployment("chat")
        assert deployment.state == "ready"
        assert deployment.api_key is not None and deployment.api_key not in str(notebook)
        lessor.down("chat")
