"""pROC, the R package, as the reference for rankcore's intervals and paired tests.

The inputs are generated here from seeded ``numpy.random.RandomState``
streams (frozen across NumPy versions), so only pROC's outputs are committed:
``tests/proc_reference.json``, written by running this file::

    python tests/_proc_reference.py          # needs Rscript with pROC (Debian: r-cran-proc)

Conventions used on the R side, to match rankcore's: ``levels = c(0, 1)``,
``direction = "<"`` (higher scores are relevant); the partial AUC over FPR
[0, α] is pROC's ``partial.auc = c(1, 1 - α)``, ``partial.auc.focus =
"specificity"``, raw (``partial.auc.correct = FALSE``, rankcore's
``pauc:α``) or McClish-corrected (``TRUE``, rankcore's ``pauc:α,mcclish``);
bootstrap intervals are stratified (pROC's default).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
TABLE = HERE / "proc_reference.json"
BOOT_N = 4000
FPRS = (0.1, 0.2)


def cases() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """name -> (y, scores1, scores2): tied and untied, small and larger."""
    out = {}
    rs = np.random.RandomState(1)
    y = np.r_[np.ones(15), np.zeros(25)].astype(np.int8)
    out["ties-small"] = (y, rs.randint(0, 8, 40).astype(float) + 2 * y, rs.randint(0, 8, 40).astype(float) + y)
    rs = np.random.RandomState(2)
    y = (rs.rand(300) < 0.35).astype(np.int8)
    s1 = np.round(rs.normal(size=300) + 0.8 * y, 1)
    out["ties-medium"] = (y, s1, np.round(0.5 * s1 + rs.normal(size=300), 1))
    rs = np.random.RandomState(3)
    y = (rs.rand(1000) < 0.25).astype(np.int8)
    out["continuous"] = (y, rs.normal(size=1000) + y, 1.2 * rs.normal(size=1000) + 0.7 * y)
    return out


def checksum(y: np.ndarray, s1: np.ndarray, s2: np.ndarray) -> float:
    """A fingerprint of the inputs: the table is stale if it changes."""
    weights = np.arange(1, y.shape[0] + 1)
    return float(np.sum(weights * (y + 0.5 * s1 + 0.25 * s2)))


_R_SCRIPT = r"""
suppressMessages(library(pROC))
args <- commandArgs(trailingOnly = TRUE)
boot.n <- as.integer(args[2])
fprs <- as.numeric(strsplit(args[3], ",")[[1]])
out <- function(key, value) cat(key, sprintf("%.17g", value), "\n")
for (file in strsplit(args[1], ",")[[1]]) {
  d <- read.csv(file)
  name <- sub("\\.csv$", "", basename(file))
  mk <- function(s, ...) roc(d$y, s, levels = c(0, 1), direction = "<", quiet = TRUE, ...)
  r1 <- mk(d$s1); r2 <- mk(d$s2)
  out(paste(name, "auc1"), as.numeric(r1$auc))
  out(paste(name, "auc2"), as.numeric(r2$auc))
  out(paste(name, "delong_var1"), var(r1, method = "delong"))
  for (level in c(0.95, 0.9)) {
    ci <- as.numeric(ci.auc(r1, method = "delong", conf.level = level))
    out(paste(name, sprintf("delong_ci%g_lower", level)), ci[1])
    out(paste(name, sprintf("delong_ci%g_upper", level)), ci[3])
  }
  t <- roc.test(r1, r2, method = "delong", paired = TRUE)
  out(paste(name, "test_z"), t$statistic)
  out(paste(name, "test_p"), t$p.value)
  out(paste(name, "test_lower"), t$conf.int[1])
  out(paste(name, "test_upper"), t$conf.int[2])
  set.seed(1)
  ci <- as.numeric(ci.auc(r1, method = "bootstrap", boot.n = boot.n, progress = "none"))
  out(paste(name, "boot_auc_lower"), ci[1]); out(paste(name, "boot_auc_upper"), ci[3])
  for (a in fprs) {
    for (correct in c(FALSE, TRUE)) {
      rp <- mk(d$s1, partial.auc = c(1, 1 - a), partial.auc.focus = "specificity", partial.auc.correct = correct)
      key <- sprintf("pauc%g%s", a, if (correct) "_mcclish" else "")
      out(paste(name, key), as.numeric(rp$auc))
      if (a == max(fprs)) {
        set.seed(2)
        ci <- as.numeric(ci.auc(rp, method = "bootstrap", boot.n = boot.n, progress = "none"))
        out(paste(name, paste0("boot_", key, "_lower")), ci[1]); out(paste(name, paste0("boot_", key, "_upper")), ci[3])
      }
    }
  }
}
"""


def rscript_with_proc() -> str | None:
    """The path of Rscript when it can load pROC, else None."""
    path = shutil.which("Rscript")
    if path is None:
        return None
    done = subprocess.run([path, "-e", "suppressMessages(library(pROC))"], capture_output=True, text=True)
    return path if done.returncode == 0 else None


def run_proc(data: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]], boot_n: int = BOOT_N) -> dict:
    """pROC's outputs for each case: {name: {key: value}} (needs Rscript with pROC)."""
    rscript = rscript_with_proc()
    if rscript is None:
        raise RuntimeError("Rscript with the pROC package is not available")
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, (y, s1, s2) in data.items():
            path = Path(tmp) / f"{name}.csv"
            np.savetxt(path, np.c_[y, s1, s2], delimiter=",", header="y,s1,s2", comments="", fmt="%.17g")
            files.append(str(path))
        script = Path(tmp) / "reference.R"
        script.write_text(_R_SCRIPT)
        done = subprocess.run([rscript, str(script), ",".join(files), str(boot_n), ",".join(map(str, FPRS))],
                              capture_output=True, text=True, check=True)
    table: dict[str, dict[str, float]] = {name: {} for name in data}
    for line in done.stdout.splitlines():
        name, key, value = line.split()
        table[name][key] = float(value)
    return table


def main() -> int:
    data = cases()
    table = run_proc(data)
    for name, (y, s1, s2) in data.items():
        table[name]["checksum"] = checksum(y, s1, s2)
    version = subprocess.run([rscript_with_proc(), "-e", 'cat(as.character(packageVersion("pROC")))'],
                             capture_output=True, text=True, check=True).stdout.strip()
    TABLE.write_text(json.dumps({"pROC": version, "boot_n": BOOT_N, "cases": table}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
