import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


@pytest.fixture
def root():
    """The repository's root (examples/host/expected.txt, bindings/testdata)."""
    return ROOT
