#!/usr/bin/env bash
# The cluster recipe of docs/large-tables.md, run as written against a real Spark standalone master and
# worker on this machine (executors in their own processes, not local[*]), started from the pyspark wheel.
#
#   bash scripts/spark-cluster-check.sh            # builds a fresh environment: several minutes
#   ENV_DIR=/path/to/venv bash scripts/spark-cluster-check.sh   # reuse an environment made by step 1
#
# 1. an environment with the project installed (`pip install .`) and venv-pack, packed into a tarball;
# 2. a standalone master and one worker (2 cores, 2 GB) on 127.0.0.1;
# 3. spark-submit in client mode, the packed environment shipped with --archives: the executors count
#    assets/examples/adult.csv (as Parquet) and draw the release into a folder of Parquet parts;
# 4. the same script in local mode (local[2], the same environment): both print the seconds of the first
#    count (executors starting their Python workers), of a second count (warm) and of the release.
# Needs Java 17 or later. Everything is made under a temporary folder, and the master and worker are
# stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

env_dir=${ENV_DIR:-$work/cluster-env}
if [ ! -x "$env_dir/bin/python" ]; then
  python3 -m venv "$env_dir"
fi
"$env_dir/bin/pip" install -q --disable-pip-version-check "$root" venv-pack
"$env_dir/bin/venv-pack" -q -f -p "$env_dir" --compress-level 1 -o "$work/dpsynth-env.tar.gz"
# Spark's scripts look for pyspark with whatever `python` is on the PATH; name the environment's.
SPARK_HOME=$("$env_dir/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
export SPARK_HOME

port=$("$env_dir/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export SPARK_LOCAL_IP=127.0.0.1 SPARK_WORKER_DIR="$work/worker" SPARK_LOG_DIR="$work/logs"
"$env_dir/bin/spark-class" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$port" \
  --webui-port 0 > "$work/master.log" 2>&1 &
pids+=($!)
sleep 5
"$env_dir/bin/spark-class" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --webui-port 0 \
  --cores 2 --memory 2g "spark://127.0.0.1:$port" > "$work/worker.log" 2>&1 &
pids+=($!)
sleep 8

cat > "$work/release_adult.py" <<'EOF'
# The recipe's release script, on the bundled example: counted by the executors, noised and fitted on the
# driver, drawn by the executors into a folder of Parquet parts.
import json
import sys
import time

import pandas as pd
from pyspark.sql import SparkSession

from dpsynth_core import synthesize
from dpsynth_core.engines import open_source

root, work = sys.argv[1], sys.argv[2]
domain = f"{root}/assets/examples/adult.policy.json"
pd.read_csv(f"{root}/assets/examples/adult.csv", dtype=str, keep_default_na=False).to_parquet(f"{work}/adult.parquet")
spark = SparkSession.builder.appName("dpsynth-cluster-check").getOrCreate()
local = spark.sparkContext.master.startswith("local")
assert local == (sys.argv[3] == "local"), spark.sparkContext.master
frame = spark.read.parquet(f"{work}/adult.parquet")
seconds = {}
start = time.perf_counter()
with open_source(frame, domain, engine="spark", spark=spark) as source:
    names = list(source.cells)
    counts = source.marginals([(names[0], names[1])])
    seconds["open and first count"] = time.perf_counter() - start
    start = time.perf_counter()
    source.marginals([(names[2], names[3])])
    seconds["a second count (warm)"] = time.perf_counter() - start
    start = time.perf_counter()
    out = f"{work}/synthetic-{sys.argv[3]}.parquet"
    release = synthesize(source, domain, epsilon=1.0, method="marginals", out=out)
    seconds["release (counted, fitted, drawn)"] = time.perf_counter() - start
executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - (0 if local else 1)
drawn = spark.read.parquet(out).count()
print(json.dumps({"master": spark.sparkContext.master, "executors": executors, "rows": release.rows,
                  "read back": drawn, "pair cells": int(counts[0].size),
                  "seconds": {k: round(v, 1) for k, v in seconds.items()}}))
assert executors >= 1 and drawn == release.rows > 30_000
EOF

"$env_dir/bin/spark-submit" --master "spark://127.0.0.1:$port" --deploy-mode client \
  --archives "$work/dpsynth-env.tar.gz#env" \
  --conf spark.pyspark.python=./env/bin/python --conf "spark.pyspark.driver.python=$env_dir/bin/python" \
  --conf spark.executor.memory=1g --conf spark.sql.shuffle.partitions=8 --conf spark.ui.enabled=false \
  "$work/release_adult.py" "$root" "$work" cluster 2> "$work/submit.log" | tail -1
# The same release in local mode, same environment and settings: what the cluster's own costs are.
"$env_dir/bin/spark-submit" --master "local[2]" \
  --conf spark.pyspark.python="$env_dir/bin/python" --conf "spark.pyspark.driver.python=$env_dir/bin/python" \
  --conf spark.sql.shuffle.partitions=8 --conf spark.ui.enabled=false \
  "$work/release_adult.py" "$root" "$work" local 2> "$work/submit-local.log" | tail -1
echo "the recipe works: executors ran the project from the packed environment (logs in $work)"
