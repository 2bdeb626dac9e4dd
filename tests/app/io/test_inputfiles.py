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
    # No writer: a blocking open() would wait for one forever.
    (lambda p: os.mkfifo(p), "is a FIFO (named pipe), not a regular file: it cannot be an env file (nothing was read from it)"),
    (lambda p: p.symlink_to("/dev/zero"), "is a character device, not a regular file: it cannot be an env file (nothing was read from it)"),
    (lambda p: p.symlink_to(p), "cannot read: Too many levels of symbolic links"),
])
def test_unusable_files_give_one_line_naming_the_file(tmp_path, make, message):
    path = tmp_path / "input"
    make(path)
    with pytest.raises(InputError) as info:
        read_input_bytes(path, "an env file", 2048)
    assert str(info.value) == f"{path}: {message}"


def test_a_socket_is_refused(tmp_path):
    import socket

    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(InputError, match="is a socket, not a regular file"):
            read_input_bytes(path, "a profile", 100)


def test_a_name_too_long_and_a_nul_are_one_line(tmp_path):
    with pytest.raises(InputError, match="File name too long"):
        read_input_bytes(tmp_path / ("x" * 300), "a profile", 100)
    with pytest.raises(InputError, match="NUL"):
        read_input_bytes(str(tmp_path) + "/a\0b", "a profile", 100)


def test_input_exists_tells_missing_from_unreadable(tmp_path):
    from cann_config.app.io.inputfiles import input_exists, input_is_dir

    assert input_exists(tmp_path / "nope") is False
    assert input_exists(tmp_path / "nope" / "deeper") is False
    (tmp_path / "f").write_text("x")
    assert input_exists(tmp_path / "f" / "below") is False  # ENOTDIR: nothing can be there
    assert input_is_dir(tmp_path) is True and input_is_dir(tmp_path / "f") is False
    assert input_is_dir(tmp_path / "nope") is None
    with pytest.raises(InputError, match="File name too long"):
        input_exists("/tmp/" + "a" * 5000)


@pytest.mark.parametrize("text,message", [
    ("[" * 65 + "]" * 65, "nested more than 64 levels deep"),
    ('{"a": ' + "9" * 41 + "}", "a number with more than 40 digits"),
    ('{"a": 1e' + "9" * 100 + "}", "a number with more than 40 digits"),
    ("{", "not valid JSON"),
])
def test_json_limits(text, message):
    from cann_config.app.io.inputfiles import parse_json_bounded

    with pytest.raises(InputError, match=message) as info:
        parse_json_bounded(text, "p.json")
    assert str(info.value).startswith("p.json:1: ")


def test_json_within_limits_and_brackets_in_strings():
    from cann_config.app.io.inputfiles import parse_json_bounded

    text = '{"a": "' + "[" * 200 + '\\"", "b": ' + "[" * 63 + "]" * 63 + ', "n": -12345678901234567890}'
    data = parse_json_bounded(text, "p.json")
    assert data["n"] == -12345678901234567890 and data["a"].startswith("[[")
