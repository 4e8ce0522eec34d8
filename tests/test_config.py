"""The library-wide memory limit (rankselect.set_config(max_memory=...))."""
import pytest

import rankselect as rs
from rankselect._config import check_memory, memory_limit


def test_default_limit_is_available_memory():
    assert rs.get_config()["max_memory"] is None
    assert memory_limit() > 0


def test_set_config_and_context_restore():
    with rs.config_context(max_memory=2**20):
        assert memory_limit() == 2**20
        message = r"greedy caches needs 2\.0 MiB but the memory limit is 1\.0 MiB; select fewer"
        with pytest.raises(MemoryError, match=message):
            check_memory(2**21, "greedy caches", "select fewer")
        check_memory(2**20, "greedy caches", "select fewer")
    assert rs.get_config()["max_memory"] is None


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "1G"])
def test_set_config_rejects_bad_limits(bad):
    with pytest.raises(ValueError, match="max_memory"):
        rs.set_config(max_memory=bad)
