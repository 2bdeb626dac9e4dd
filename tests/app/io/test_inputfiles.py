"""The shared reader of user-named files: one clear line for every file that cannot be used."""

import os

import pytest
from cann_config.app.errors import InputError
from cann_config.app.io.inputfiles import read_input_bytes


def test_reads_bytes_and_stat(tmp_path):
    path = tmp_path / "f.ini"
    path.write_bytes(b"a=1\n")
    data, info = read_input_bytes(path, "an op_cache.ini", 100)
    assert data == b"a=1\n" and info.st_size == 4


@pytest.mark.parametrize("make,message", [
    (lambda p: p.mkdir(), "is a directory, not an env file"),
    (lambda p: None, "cannot read: No such file or directory"),
    (lambda p: p.write_bytes(b"x" * 2049), "is larger than 2 KB: too large to be an env file"),
    (lambda p: os.mkfifo(p), "is not a regular file, not an env file"),
])
def test_unusable_files_give_one_line_naming_the_file(tmp_path, make, message):
    path = tmp_path / "input"
    make(path)
    if message.startswith("is not a regular"):
        # Opening a FIFO for reading blocks until a writer appears: give it one.
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    try:
        with pytest.raises(InputError) as info:
            read_input_bytes(path, "an env file", 2048)
    finally:
        if message.startswith("is not a regular"):
            os.close(fd)
    assert str(info.value) == f"{path}: {message}"
