"""Writes row-groups.parquet: the games of games.parquet twice over (12 rows) in row groups of
5, 5 and 2 rows, for `--row-groups` and the Spark job's row-group splits. Run it with pyarrow
after make.py: python3 make-row-groups.py"""
import os

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
t = pq.read_table(os.path.join(HERE, "games.parquet"))
pq.write_table(pa.concat_tables([t, t]), os.path.join(HERE, "row-groups.parquet"),
               row_group_size=5)
