"""pytest for the amk package: CPU tests run anywhere amk-opt is built; tests
marked `gpu` need torch and a CUDA device (and are skipped without them)."""

import os
import sys

import pytest

# The repository's package, unless the tests are to check an installed one
# (scripts/gpu-python.sh runs them against the wheel).
if not os.environ.get("AMK_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def _has_gpu():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs torch and a CUDA device")


def pytest_collection_modifyitems(config, items):
    if _has_gpu():
        return
    skip = pytest.mark.skip(reason="no torch with a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def cache(tmp_path):
    """A compile cache of the test's own."""
    return str(tmp_path / "cache")
