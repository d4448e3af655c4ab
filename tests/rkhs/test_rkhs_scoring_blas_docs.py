"""docs/serving.md gives the size below which KernelRanker's scores take no BLAS limit: the code's number."""
import pathlib
import re

from rankcore.rkhs import _estimator

SERVING = pathlib.Path(__file__).resolve().parents[2] / "docs" / "serving.md"


def test_the_serving_page_states_the_codes_bound():
    text = " ".join(SERVING.read_text(encoding="utf-8").split())
    stated = re.findall(r"features under ([\d,]+) multiply-adds", text)
    assert stated == [f"{_estimator.BLAS_SERIAL_WORK:,}"]
