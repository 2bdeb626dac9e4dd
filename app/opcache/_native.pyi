from typing import Any

# The C extension app/opcache/_native.c (its comments say what each function answers).
def plain_chunk(
    dir_fd: int, names: list[str], json_mask: bytes, uid: int, /
) -> tuple[int, int, int, tuple[int, ...], bytes, bytes, bytes] | None: ...
def order_keys(
    chunks: list[tuple[Any, bytes | None]], pos_bits: int, chunk_bits: int, /
) -> tuple[list[int], bytes] | None: ...
def name_mask(names: list[str], shortest: int, suffixes: tuple[str, ...], suffix_longer_than: int, /) -> bytes: ...
def select_step(
    keys: list[int], pos: int, end: int, want: int, layout: tuple[int, int, int], jsons: list[Any],
    bins: list[Any], read_marks: list[bytes], rule: int, now_s: int, max_age: int, pre_suffix: str,
    should_stop: Any, stopped: bool, /
) -> tuple[bytes, dict[int, list[int]], bool]: ...
def read_groups(
    root_fd: int, soc_dir: str, todo: dict[int, list[int]], jsons: list[Any], bins: list[Any], sfx: list[bytearray],
    suffixes: list[str], threads: int, open_flags: int, max_bytes: int, /
) -> tuple[list[tuple[int, int, tuple[str | int, ...]]], list[tuple[int, int]], list[str]]: ...
def account(
    keys: list[int], start: int, marks: bytes, layout: tuple[int, int, int], jsons: list[Any], bins: list[Any],
    other_bytes: dict[int, int], counted: int, target: int, delete: list[int], unparsed: list[int],
    others: list[int], /
) -> tuple[int, int, bool, int, int]: ...
def helper_cpu_seconds() -> float: ...
