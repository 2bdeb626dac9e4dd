"""Product names where npu-smi prints them (`Product Type`), in detect's text and JSON; the
device table's SoCs in generation order, each with its series name in both languages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cann_config.app.cli import main
from cann_config.app.device.npusmi import device_from_npu_smi, parse_npu_smi_board, product_type
from cann_config.app.device.table import device_from_soc, load_device_table

SMI = Path(__file__).resolve().parents[2] / "data" / "npu-smi"


def text(name: str) -> str:
    return (SMI / name).read_text(encoding="utf-8")


def test_a_product_query_names_the_product_not_the_soc():
    device = device_from_npu_smi(text("310p3-duo.txt"), [text("310p3-duo-product.txt")])
    assert device.product == "Atlas 300I Duo" and device.soc_version == "Ascend310P3"
    assert device.series == "atlas-inference"
    assert device.to_json()["product"] == "Atlas 300I Duo"
    assert device.label("en") == "Atlas 300I Duo, Atlas inference series (Ascend310P3)"


def test_a_board_query_with_product_type_gives_both():
    board = parse_npu_smi_board(text("a2-board-910b4-product.txt"))
    assert board.product == "Atlas 800T A2" and board.soc_version == "Ascend910B4"
    device = device_from_npu_smi(None, [text("a2-board-910b4-product.txt")])
    assert (device.product, device.soc_version) == ("Atlas 800T A2", "Ascend910B4")


def test_without_product_type_there_is_no_product():
    device = device_from_npu_smi(text("a2-910b3.txt"), [text("a2-board-910b4.txt")])
    assert device.product is None and device.to_json()["product"] is None
    # Product Name is a part number, not a product
    assert product_type(text("board-without-chip.txt")) is None


@pytest.mark.parametrize("value", ["\x1b[31mAtlas", "Atlas 300I\u202eDuo", "x" * 90, "NA", "-"])
def test_a_product_type_that_is_not_a_product_name_is_ignored(value):
    assert product_type(f"NPU ID : 0\nProduct Type : {value}\nChip ID : 0\n") is None


@pytest.mark.parametrize("option", ["--npu-smi-info", "--npu-smi-board"])
def test_a_product_query_alone_is_not_enough_to_know_the_soc(capsys, option):
    path = SMI / "310p3-duo-product.txt"
    assert main(["detect", option, str(path), "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"cann-config: {path}: ")
    assert "names the product (Atlas 300I Duo), not the chip" in err


@pytest.mark.parametrize("lang, words", [("en", "Product: Atlas 300I Duo (as the board says it"),
                                         ("zh_CN", "产品：Atlas 300I Duo（板卡信息所示")])
def test_detect_prints_the_product(capsys, lang, words):
    argv = ["detect", "--npu-smi-info", str(SMI / "310p3-duo.txt"), "--npu-smi-board",
            str(SMI / "310p3-duo-product.txt"), "--lang", lang]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(words) and out.count("Atlas 300I Duo") == 1
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["product"] == "Atlas 300I Duo"


def test_socs_are_in_generation_order():
    table = load_device_table()
    socs = table.all_socs()
    assert socs.index("Ascend310P1") < socs.index("Ascend310P2") < socs.index("Ascend310P3") < socs.index("Ascend310P4")
    assert table.socs_of("atlas-a2") == ["Ascend910B1", "Ascend910B2", "Ascend910B2C", "Ascend910B3", "Ascend910B4",
                                         "Ascend910B4-1"]
    assert table.socs_of("atlas-a3")[0] == "Ascend910_9362"
    # series newest first, as the table orders them
    assert socs.index("Ascend950PR_9579") < socs.index("Ascend910_9392") < socs.index("Ascend910B3") \
        < socs.index("Ascend310B1") < socs.index("Ascend310P1") < socs.index("Ascend910A") < socs.index("Ascend310")
    assert sorted(socs) == sorted(s for series in table.series.values() for s in series.socs + series.inferred_socs)


def test_every_soc_of_the_table_has_a_series_name_in_both_languages():
    for soc in load_device_table().all_socs():
        device = device_from_soc(soc, "manual")
        assert device.series_name("en") and device.series_name("zh_CN")
        assert device.label("zh_CN").endswith(f"({soc})")
