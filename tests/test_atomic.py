"""File modes of the atomic writer (games/atomic.py): a written file honours the umask, as
``open(path, "w")`` does, instead of keeping the temporary file's 0600."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from games.atomic import atomic_write_bytes, atomic_write_json, atomic_write_text, current_umask
from networks.checkpoint import atomic_torch_save


@pytest.fixture
def umask():
    """Set the process umask for one test and put the old one back."""
    old = os.umask(0o022)
    os.umask(old)

    def set_mask(mask: int) -> None:
        os.umask(mask)

    yield set_mask
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600), (0o002, 0o664)])
def test_each_writer_gives_the_mode_of_a_new_file_under_the_umask(tmp_path, umask, mask, expected):
    umask(mask)
    assert current_umask() == mask
    written = [
        atomic_write_bytes(tmp_path / "a.bin", b"abc"),
        atomic_write_text(tmp_path / "a.txt", "abc"),
        atomic_write_json(tmp_path / "a.json", {"a": 1}),
        atomic_torch_save({"x": 1}, tmp_path / "a.pt"),
    ]
    assert [oct(mode(path)) for path in written] == [oct(expected)] * 4
    # the same as a plain open() under that umask
    plain = tmp_path / "plain.txt"
    plain.write_text("abc")
    assert mode(plain) == expected


def test_replacing_a_file_gives_the_umask_mode_not_the_old_files(tmp_path, umask):
    path = tmp_path / "config.json"
    umask(0o077)
    atomic_write_json(path, {"a": 1})
    assert mode(path) == 0o600
    umask(0o022)
    atomic_write_json(path, {"a": 2})
    assert mode(path) == 0o644
    assert path.read_text() == '{\n  "a": 2\n}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]  # no temporary left behind
