"""rankcore.gbdt imports neither LightGBM nor XGBoost until an adapter is called (they are optional extras)."""

import subprocess
import sys


def test_importing_rankcore_gbdt_loads_no_gradient_boosting_library():
    code = ("import sys, rankcore.gbdt as g; g.lightgbm_objective('push:exp,pow:4'); g.xgboost_metric('auc'); "
            "assert 'lightgbm' not in sys.modules and 'xgboost' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
