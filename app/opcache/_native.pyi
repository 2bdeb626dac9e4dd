from typing import Any

# The C extension app/opcache/_native.c (its comments say what each function answers).
def plain_chunk(
    dir_fd: int, names: list[str], json_mask: bytes, uid: int, /
) -> tuple[int, int, int, tuple[int, ...], bytes, bytes, bytes] | None: ...
def kernel_groups(
    dir_fd: int, names: list[str], sizes: list[int], atimes: list[int], open_flags: int, max_bytes: int,
    folder: str, group_type: type[Any], stems: dict[str, Any], /
) -> list[Any]: ...
def order_keys(
    chunks: list[tuple[Any, bytes | None]], pos_bits: int, chunk_bits: int, /
) -> tuple[list[int], bytes] | None: ...
def name_mask(names: list[str], shortest: int, suffixes: tuple[str, ...], suffix_longer_than: int, /) -> bytes: ...
def read_step(
    root_fd: int, soc_dir: str, candidates: list[tuple[int, str, str, int]], cache: dict[str, dict[str, Any]],
    should_stop: Any, stopped: bool, open_flags: int, max_bytes: int, group_type: type[Any], stems: dict[str, Any], /
) -> tuple[list[Any], bool, int]: ...
