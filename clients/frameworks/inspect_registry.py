"""What Inspect AI loads through taurec's `inspect_ai` entry point, so that
`inspect eval taurec/taurec_suite` finds the task once taurec is installed:

    [project.entry-points.inspect_ai]
    taurec = "taurec.clients.frameworks.inspect_registry"

Importing this module registers the task, its solver, scorer and metric under the
`taurec/` namespace (Inspect names them after the installed package), and the offline
stand-in model provider, `--model taurec/scripted` (inspect_mock.py).
"""

from taurec.clients.frameworks.inspect_mock import taurec_models  # noqa: F401
from taurec.clients.frameworks.inspect_task import (  # noqa: F401
    passed,
    taurec_agent,
    taurec_score,
    taurec_suite,
)
