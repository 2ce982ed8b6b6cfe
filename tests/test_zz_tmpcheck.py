import psutil, pytest
from shellgate.sandbox import reaper
reaper.enable()
from tests.test_bashtool import *  # noqa
@pytest.fixture(autouse=True)
def _z(request):
    yield
    z = [(p.pid, p.name(), p.status()) for p in psutil.Process().children(recursive=True) if p.status() == "zombie"]
    print("\nAFTER", request.node.name, z)
